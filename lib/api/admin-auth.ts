// Who may use the operators' console: the ADMIN_TOKEN as a Bearer, or the session cookie the /admin page gets by
// signing in with it. The cookie is HttpOnly, SameSite=Strict, Secure over https, lasts 12 hours and is signed with
// a key derived from the server's pepper and the token, so changing ADMIN_TOKEN ends every session. Pro keys are
// never an admin credential.
import crypto from "node:crypto";
import type { Bucket } from "@/lib/quota/types";

export const SESSION_COOKIE = "darkroom_admin";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Ten failed sign-ins per hour per client, then 429; a correct one gives its unit back. */
export const SIGN_IN_BUCKET: Bucket = { name: "admin-sign-in", limit: 10, windowMs: 60 * 60 * 1000 };

const SESSION_VERSION = "v1";

function sessionKey(token: string, pepper: string): Buffer {
  return crypto.createHmac("sha256", pepper).update(`darkroom admin session\0${token}`).digest();
}

function sign(payload: string, token: string, pepper: string): string {
  return crypto.createHmac("sha256", sessionKey(token, pepper)).update(payload).digest("base64url");
}

/** Constant time whatever was presented: digests of both are compared, so not even the length leaks. */
export function tokenMatches(presented: string, token: string): boolean {
  const a = crypto.createHash("sha256").update(presented).digest();
  const b = crypto.createHash("sha256").update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

export function issueSession(token: string, pepper: string, now = Date.now()): { value: string; expiresAt: number } {
  const expiresAt = now + SESSION_TTL_MS;
  const payload = `${SESSION_VERSION}.${Math.floor(expiresAt / 1000)}.${crypto.randomBytes(16).toString("base64url")}`;
  return { value: `${payload}.${sign(payload, token, pepper)}`, expiresAt };
}

/** The session's expiry (Unix ms) when the cookie is one we signed and has not expired, else null. */
export function verifySession(
  value: string | undefined,
  token: string,
  pepper: string,
  now = Date.now(),
): number | null {
  const parts = value?.split(".") ?? [];
  if (parts.length !== 4 || parts[0] !== SESSION_VERSION || !/^\d{1,12}$/.test(parts[1])) return null;
  const expected = Buffer.from(sign(parts.slice(0, 3).join("."), token, pepper));
  const presented = Buffer.from(parts[3]);
  if (presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) return null;
  const expiresAt = Number(parts[1]) * 1000;
  return expiresAt > now ? expiresAt : null;
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Reached over https: directly, or through a proxy that says so (a client lying here only hurts itself). */
export function isSecureRequest(req: Request): boolean {
  return new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto")?.split(",")[0] === "https";
}

export function sessionCookie(value: string, secure: boolean): string {
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/**
 * True when the request says it comes from the console's own page (the Origin header browsers send on every
 * state-changing fetch): the host it was sent to, or the configured PUBLIC_APP_URL (a reverse proxy may rewrite
 * Host on the way in). No Origin at all is refused: a cookie call must prove where it comes from.
 */
export function isSameOrigin(req: Request, publicAppUrl?: string): boolean {
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (!origin || origin === "null") return false;
  if (publicAppUrl !== undefined && origin === new URL(publicAppUrl).origin) return true;
  if (!host) return false;
  try {
    const url = new URL(origin);
    if (url.host.toLowerCase() !== host.toLowerCase()) return false;
    // An http page may not act on an https console.
    return url.protocol === "https:" || !isSecureRequest(req);
  } catch {
    return false;
  }
}
