// The console's session cookie. It carries a server-side session's id (lib/console/sessions.ts), signed with a key
// derived from the server's pepper and the token, so a cookie can neither be made up nor carry another id. The
// cookie is HttpOnly, SameSite=Strict, Secure when the console is reached over https, and lasts 12 hours; the session
// behind it can end sooner (sign-out, sign-out everywhere, a new ADMIN_TOKEN). Pro keys are never an admin credential.
import crypto from "node:crypto";
import { SESSION_TTL_MS } from "@/lib/console/sessions";

export { secretMatches as tokenMatches } from "@/lib/auth/secret";

export const SESSION_COOKIE = "darkroom_admin";

const SESSION_VERSION = "v2";

function sessionKey(token: string, pepper: string): Buffer {
  return crypto.createHmac("sha256", pepper).update(`darkroom admin session\0${token}`).digest();
}

function sign(payload: string, token: string, pepper: string): string {
  return crypto.createHmac("sha256", sessionKey(token, pepper)).update(payload).digest("base64url");
}

/** The cookie's value for a session id: "v2.<id>.<signature>". */
export function sessionCookieValue(sessionId: string, token: string, pepper: string): string {
  const payload = `${SESSION_VERSION}.${sessionId}`;
  return `${payload}.${sign(payload, token, pepper)}`;
}

/** The session id a cookie we signed carries, else null (the session itself is then looked up in the store). */
export function sessionIdOf(value: string | undefined, token: string, pepper: string): string | null {
  const parts = value?.split(".") ?? [];
  if (parts.length !== 3 || parts[0] !== SESSION_VERSION || !/^[A-Za-z0-9_-]{16,64}$/.test(parts[1])) return null;
  const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`, token, pepper));
  const presented = Buffer.from(parts[2]);
  if (presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) return null;
  return parts[1];
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
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
 * Host on the way in). No Origin at all is refused: a cookie call must prove where it comes from. `secure`: the
 * console was reached over https (isSecureRequest), where an http page may not act on it.
 */
export function isSameOrigin(
  req: Request,
  publicAppUrl?: string,
  secure = new URL(req.url).protocol === "https:",
): boolean {
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (!origin || origin === "null") return false;
  if (publicAppUrl !== undefined && origin === new URL(publicAppUrl).origin) return true;
  if (!host) return false;
  try {
    const url = new URL(origin);
    if (url.host.toLowerCase() !== host.toLowerCase()) return false;
    return url.protocol === "https:" || !secure;
  } catch {
    return false;
  }
}
