// Who is calling: a Pro key, a browser on the Free plan (counted per IP), or nobody we can serve.
import crypto from "node:crypto";
import net from "node:net";
import { verifyApiKey } from "@/lib/auth/keys";
import type { Caller } from "@/lib/auth/types";
import { log } from "@/lib/log";
import { ipIdentity, ipv6Prefix, normalizeIp } from "@/lib/net/client-ip";
import { PEER_IP_HEADER, PEER_PROTO_HEADER, PEER_TOKEN_ENV, PEER_TOKEN_HEADER } from "@/lib/net/peer";
import { ApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";
import { bearerToken } from "./bearer";

/** The one bucket every request without a usable address shares: a missing address never opens fresh quota. */
export const UNKNOWN_IP_IDENTITY = "ip:unknown";
const WARN_EVERY_MS = 60_000;
let lastWarned = 0;

/** True when the request passed through server.ts, which alone sets the peer headers (signed with its token). */
function signedByServer(req: Request, token: string): boolean {
  const presented = req.headers.get(PEER_TOKEN_HEADER);
  return (
    presented !== null &&
    presented.length === token.length &&
    crypto.timingSafeEqual(Buffer.from(presented), Buffer.from(token))
  );
}

/** The client address as recorded by our server (or the platform on Vercel); null when unknown. */
export function readClientIp(req: Request, svc: Pick<Services, "config">): string | null {
  const token = process.env[PEER_TOKEN_ENV];
  if (token) {
    // Behind server.ts only its signed header counts, whatever platform variables say.
    return signedByServer(req, token) ? normalizeIp(req.headers.get(PEER_IP_HEADER)) : null;
  }
  if (svc.config.onVercel) {
    // Vercel's edge overwrites these with the real client address; clients cannot set them there.
    return normalizeIp(req.headers.get("x-real-ip") ?? req.headers.get("x-vercel-forwarded-for")?.split(",")[0]);
  }
  return null;
}

/**
 * Whether the client reached the app over https: PUBLIC_APP_URL's scheme when the operator set it (the public
 * origin), always on Vercel, else what server.ts saw (TLS on its socket, or a trusted proxy's X-Forwarded-Proto).
 * A client's own X-Forwarded-Proto never decides it.
 */
export function isSecureRequest(req: Request, svc: Pick<Services, "config">): boolean {
  const { publicAppUrl, onVercel } = svc.config;
  if (publicAppUrl !== undefined) return new URL(publicAppUrl).protocol === "https:";
  if (onVercel) return true;
  const token = process.env[PEER_TOKEN_ENV];
  if (token && signedByServer(req, token)) return req.headers.get(PEER_PROTO_HEADER) === "https";
  return new URL(req.url).protocol === "https:";
}

export function identityOfIp(ip: string | null): string {
  if (ip) return `ip:${ipIdentity(ip)}`;
  const now = Date.now();
  if (now - lastWarned > WARN_EVERY_MS) {
    lastWarned = now;
    log.warn("requests without a usable client address share one free bucket; check TRUSTED_PROXIES and `npm start`");
  }
  return UNKNOWN_IP_IDENTITY;
}

/** A Free caller on the address the request came from. */
export function freeCallerOf(ip: string | null): Caller {
  const net48 = ip && net.isIP(ip) === 6 ? `ip48:${ipv6Prefix(ip, 48)}` : undefined;
  return { plan: "free", identity: identityOfIp(ip), ip, ...(net48 && { net48 }) };
}

/** A credential a route accepts (declared in its policy, see withApi). */
export type Credential = "key" | "browser" | "deleteToken";

/**
 * Who is calling, by the credentials the route accepts: a Bearer key (always verified when sent, 401 if bad), a
 * browser's X-Requested-With (Free), or an X-Delete-Token alone (Free, counted on the address).
 */
export async function identifyCaller(
  req: Request,
  svc: Pick<Services, "keys" | "pepper">,
  ip: string | null,
  accepts: readonly Credential[] = ["key", "browser"],
): Promise<Caller> {
  if (req.headers.has("authorization")) {
    const token = bearerToken(req);
    const record = token ? await verifyApiKey(svc.keys, svc.pepper, token) : null;
    if (!record) throw new ApiError("unauthorized", "The API key is missing, malformed, unknown or revoked.");
    return {
      plan: "pro",
      identity: `key:${record.id}`,
      keyId: record.id,
      ...(record.dailyLimit !== undefined && { dailyLimit: record.dailyLimit }),
      ip,
    };
  }
  if (accepts.includes("browser") && req.headers.get("x-requested-with")?.toLowerCase() === "xmlhttprequest") {
    return freeCallerOf(ip);
  }
  // The delete token is a credential of its own; the route checks it against the image.
  if (accepts.includes("deleteToken") && req.headers.has("x-delete-token")) return freeCallerOf(ip);
  throw new ApiError(
    "unauthorized",
    "An API key is required: send Authorization: Bearer <key>. Pro keys are not generally available yet; join the waitlist at /waitlist.",
  );
}
