// The console's sign-in sessions, kept server-side in the store: each has an id and an expiry, and remembers which
// ADMIN_TOKEN opened it (as a keyed digest). Signing out deletes the session, "sign out everywhere" deletes them
// all, and a session opened with another token than today's is no session at all, so changing ADMIN_TOKEN ends
// every session.
import crypto from "node:crypto";

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export type AdminSession = {
  /** Random, 22 base64url characters; the cookie carries it, signed. */
  id: string;
  /** tokenFingerprint() of the ADMIN_TOKEN the session was opened with. */
  tokenDigest: string;
  createdAt: number;
  expiresAt: number;
  /** The address it was opened from, for the operator. */
  ip: string | null;
};

/** Where sessions live: one implementation per store backend. */
export interface AdminSessionStore {
  /** Stores a new session (and may drop expired ones on the way). */
  putSession(session: AdminSession): Promise<void>;
  /** The session with this id, expired or not; null when there is none. */
  getSession(id: string): Promise<AdminSession | null>;
  /** Deletes one session; true when it existed. */
  deleteSession(id: string): Promise<boolean>;
  /** Deletes every session; returns how many there were. */
  deleteAllSessions(): Promise<number>;
}

/** A keyed digest of the token: the store never holds the token, and a new token matches no old session. */
export function tokenFingerprint(token: string, pepper: string): string {
  return crypto.createHmac("sha256", pepper).update(`darkroom admin token\0${token}`).digest("hex");
}

export async function openSession(
  store: Pick<AdminSessionStore, "putSession">,
  token: string,
  pepper: string,
  ip: string | null,
  now = Date.now(),
): Promise<AdminSession> {
  const session: AdminSession = {
    id: crypto.randomBytes(16).toString("base64url"),
    tokenDigest: tokenFingerprint(token, pepper),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
    ip,
  };
  await store.putSession(session);
  return session;
}

/**
 * The live session with this id: it exists, has not expired and was opened with the current token. A session that
 * fails either test is deleted on the way, so it cannot come back.
 */
export async function liveSession(
  store: Pick<AdminSessionStore, "getSession" | "deleteSession">,
  id: string,
  token: string,
  pepper: string,
  now = Date.now(),
): Promise<AdminSession | null> {
  const session = await store.getSession(id);
  if (!session) return null;
  const expected = Buffer.from(tokenFingerprint(token, pepper));
  const stored = Buffer.from(session.tokenDigest);
  const sameToken = stored.length === expected.length && crypto.timingSafeEqual(stored, expected);
  if (sameToken && session.expiresAt > now) return session;
  await store.deleteSession(id);
  return null;
}
