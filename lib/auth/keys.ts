// Pro API keys: shown once, stored only as an HMAC-SHA-256 under the pepper plus their last 4 characters.
import crypto from "node:crypto";
import type { KeyRecord, KeyRepository } from "@/lib/auth/types";

export const KEY_PREFIX = "dk_live_";
const KEY_PATTERN = /^dk_live_[A-Za-z0-9_-]{43}$/;
const DUMMY_HASH = Buffer.alloc(32);

export function generateApiKey(): string {
  // 256 random bits; base64url keeps it copy-paste safe.
  return KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashApiKey(key: string, pepper: string): string {
  return crypto.createHmac("sha256", pepper).update(key).digest("hex");
}

/** A Standard Webhooks signing secret: `whsec_` and base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString("base64")}`;
}

export type NewKeyOptions = {
  /** Who the key is issued to. */
  email?: string;
  /** The key's own daily limit instead of PRO_REQUESTS_PER_DAY. */
  dailyLimit?: number;
};

/** A new key and its record, not stored yet: the caller decides when (the waitlist claims its entry first). */
export function prepareApiKey(
  pepper: string,
  label: string,
  opts: NewKeyOptions = {},
): { key: string; record: KeyRecord } {
  const key = generateApiKey();
  const record: KeyRecord = {
    id: `key_${crypto.randomBytes(6).toString("hex")}`,
    label,
    hash: hashApiKey(key, pepper),
    last4: key.slice(-4),
    plan: "pro",
    createdAt: new Date().toISOString(),
    revokedAt: null,
    ...(opts.email && { email: opts.email }),
    ...(opts.dailyLimit !== undefined && { dailyLimit: opts.dailyLimit }),
    webhookSecret: generateWebhookSecret(),
  };
  return { key, record };
}

export async function createApiKey(
  keys: Pick<KeyRepository, "insertKey">,
  pepper: string,
  label: string,
  opts: NewKeyOptions = {},
): Promise<{ key: string; record: KeyRecord }> {
  const prepared = prepareApiKey(pepper, label, opts);
  await keys.insertKey(prepared.record);
  return prepared;
}

/** The active key record for a presented key, or null. Always does one constant-time comparison. */
export async function verifyApiKey(
  keys: Pick<KeyRepository, "findKeyByHash">,
  pepper: string,
  presented: string,
): Promise<KeyRecord | null> {
  const hash = Buffer.from(hashApiKey(presented, pepper), "hex");
  const record = isWellFormedKey(presented) ? await keys.findKeyByHash(hash.toString("hex")) : null;
  const stored = record ? Buffer.from(record.hash, "hex") : DUMMY_HASH;
  const same = stored.length === hash.length && crypto.timingSafeEqual(stored, hash);
  if (!record || !same || record.revokedAt) return null;
  return record;
}

/**
 * The webhook signing secret of a key made before secrets were stored with the key (`whsec_` + base64 of 32 bytes),
 * derived from the pepper and the key id. Such a key keeps it: it is stored on first use (lib/console/keys.ts).
 */
export function webhookSecretFor(keyId: string, pepper: string): string {
  return `whsec_${crypto.createHmac("sha256", pepper).update(`webhook-signing:${keyId}`).digest("base64")}`;
}
