// Who is calling: a Pro key, a browser on the Free plan (counted per IP), or nobody we can serve.
import crypto from "node:crypto";
import net from "node:net";
import { verifyApiKey } from "@/lib/auth/keys";
import type { Caller } from "@/lib/auth/types";
import { log } from "@/lib/log";
import { ipIdentity, ipv6Prefix, normalizeIp } from "@/lib/net/client-ip";
import { PEER_IP_HEADER, PEER_TOKEN_ENV, PEER_TOKEN_HEADER } from "@/lib/net/peer";
import { ApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";

/** The one bucket every request without a usable address shares: a missing address never opens fresh quota. */
export const UNKNOWN_IP_IDENTITY = "ip:unknown";
const WARN_EVERY_MS = 60_000;
let lastWarned = 0;

/** The client address as recorded by our server (or the platform on Vercel); null when unknown. */
export function readClientIp(req: Request, svc: Pick<Services, "config">): string | null {
  const token = process.env[PEER_TOKEN_ENV];
  if (token) {
    // Behind server.ts only its signed header counts, whatever platform variables say.
    const presented = req.headers.get(PEER_TOKEN_HEADER);
    const signed =
      presented !== null &&
      presented.length === token.length &&
      crypto.timingSafeEqual(Buffer.from(presented), Buffer.from(token));
    return signed ? normalizeIp(req.headers.get(PEER_IP_HEADER)) : null;
  }
  if (svc.config.onVercel) {
    // Vercel's edge overwrites these with the real client address; clients cannot set them there.
    return normalizeIp(req.headers.get("x-real-ip") ?? req.headers.get("x-vercel-forwarded-for")?.split(",")[0]);
  }
  return null;
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

export async function identifyCaller(req: Request, svc: Services, ip: string | null): Promise<Caller> {
  const auth = req.headers.get("authorization");
  if (auth !== null) {
    const match = /^Bearer +(\S+) *$/i.exec(auth);
    const record = match ? await verifyApiKey(svc.keys, svc.pepper, match[1]) : null;
    if (!record) throw new ApiError("unauthorized", "The API key is missing, malformed, unknown or revoked.");
    return {
      plan: "pro",
      identity: `key:${record.id}`,
      keyId: record.id,
      ...(record.dailyLimit !== undefined && { dailyLimit: record.dailyLimit }),
      ip,
    };
  }
  if (req.headers.get("x-requested-with")?.toLowerCase() === "xmlhttprequest") return freeCallerOf(ip);
  throw new ApiError(
    "unauthorized",
    "An API key is required: send Authorization: Bearer <key>. Pro keys are not generally available yet; join the waitlist at /waitlist.",
  );
}
