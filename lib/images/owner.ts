// Who owns an image, and the delete token its creator gets: plain values the routes compute from the caller.
import crypto from "node:crypto";

/** A Pro key's images belong to the key; a Free caller's to a keyed hash of its identity (never the address). */
export function imageOwnerOf(caller: { keyId?: string; identity: string }, pepper: string): string {
  if (caller.keyId) return caller.keyId;
  const hash = crypto.createHmac("sha256", pepper).update(`image-owner\0${caller.identity}`).digest("hex");
  return `free_${hash.slice(0, 32)}`;
}

export const DELETE_TOKEN_PREFIX = "dt_";

/** 256 random bits; only its hash is stored. */
export function newDeleteToken(): string {
  return DELETE_TOKEN_PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function hashDeleteToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}
