// Who is calling: a Pro key, a browser on the Free plan (counted per IP), or nobody we can serve.
import crypto from "node:crypto";
import { ipIdentity, normalizeIp } from "@/lib/api/client-ip";
import { ApiError } from "@/lib/api/errors";
import { PEER_IP_HEADER, PEER_TOKEN_ENV, PEER_TOKEN_HEADER } from "@/lib/api/peer";
import { verifyApiKey } from "@/lib/auth/keys";
import type { Plan } from "@/lib/quota/policies";
import type { Services } from "@/lib/services";

export type Caller = {
  plan: Plan;
  /** What quotas are counted on: "key:<id>", "ip:<addr or /64>", or a one-off id when there is no usable address. */
  identity: string;
  keyId?: string;
  ip: string | null;
};

let warnedNoPeer = false;

/** The client address as recorded by our server (or the platform on Vercel); null when unknown. */
export function readClientIp(req: Request, svc: Pick<Services, "config">): string | null {
  if (svc.config.onVercel) {
    // Vercel overwrites these with the real client address; clients cannot set them there.
    return normalizeIp(req.headers.get("x-real-ip") ?? req.headers.get("x-vercel-forwarded-for")?.split(",")[0]);
  }
  const token = process.env[PEER_TOKEN_ENV];
  const presented = req.headers.get(PEER_TOKEN_HEADER);
  if (
    token &&
    presented &&
    presented.length === token.length &&
    crypto.timingSafeEqual(Buffer.from(presented), Buffer.from(token))
  ) {
    return normalizeIp(req.headers.get(PEER_IP_HEADER));
  }
  if (!warnedNoPeer) {
    warnedNoPeer = true;
    console.warn(
      "darkroom: requests are not coming through server.ts, so client IPs are unknown; start with `npm start`.",
    );
  }
  return null;
}

export function identityOfIp(ip: string | null): string {
  // Requests with no usable address never share a bucket, so one cannot exhaust another's quota.
  return ip ? `ip:${ipIdentity(ip)}` : `anon:${crypto.randomUUID()}`;
}

export async function identifyCaller(req: Request, svc: Services): Promise<Caller> {
  const ip = readClientIp(req, svc);
  const auth = req.headers.get("authorization");
  if (auth !== null) {
    const match = /^Bearer +(\S+) *$/i.exec(auth);
    const record = match ? await verifyApiKey(svc.store, svc.pepper, match[1]) : null;
    if (!record) throw new ApiError("unauthorized", "The API key is missing, malformed, unknown or revoked.");
    return { plan: "pro", identity: `key:${record.id}`, keyId: record.id, ip };
  }
  if (req.headers.get("x-requested-with")?.toLowerCase() === "xmlhttprequest") {
    return { plan: "free", identity: identityOfIp(ip), ip };
  }
  throw new ApiError(
    "unauthorized",
    "An API key is required: send Authorization: Bearer <key>. Pro keys are not generally available yet; join the waitlist at /waitlist.",
  );
}
