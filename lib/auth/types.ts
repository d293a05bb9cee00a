// Keys and callers: the key record, the repository the store backends implement, and who a request is from.
import type { Plan } from "@/lib/quota/policies";

export type KeyRecord = {
  id: string;
  label: string;
  /** HMAC-SHA-256 of the key under the server pepper, hex. */
  hash: string;
  last4: string;
  plan: "pro";
  createdAt: string;
  revokedAt: string | null;
  // Added in 1.1; absent on keys made before, and then treated as unset.
  /** Who the key was issued to (from the waitlist or the console). */
  email?: string;
  /** The key's own daily limit; unset means PRO_REQUESTS_PER_DAY. */
  dailyLimit?: number;
  /** The Standard Webhooks signing secret: `whsec_` and base64. */
  webhookSecret?: string;
};

/** Every key, on one backend: the API, the console and the CLI read and change them through it. */
export interface KeyRepository {
  insertKey(key: KeyRecord): Promise<void>;
  findKey(id: string): Promise<KeyRecord | null>;
  findKeyByHash(hash: string): Promise<KeyRecord | null>;
  /** Oldest first. */
  listKeys(): Promise<KeyRecord[]>;
  /** Returns false when no key has that id. Revoking twice keeps the first time. */
  revokeKey(id: string, at: string): Promise<boolean>;
  /** null returns the key to the default limit. False when no key has that id. */
  setKeyDailyLimit(id: string, limit: number | null): Promise<boolean>;
  /** Stores `secret` unless the key already has one, and returns the key's secret (null: no such key). */
  ensureWebhookSecret(id: string, secret: string): Promise<string | null>;
}

export type Caller = {
  plan: Plan;
  /** What quotas are counted on: "key:<id>", "ip:<addr or /64>", or "ip:unknown" for every request without one. */
  identity: string;
  keyId?: string;
  /** A Pro key's own daily limit, when the operator set one. */
  dailyLimit?: number;
  ip: string | null;
  /** For IPv6 Free callers: the /48 all their /64s are also counted on together. */
  net48?: string;
};
