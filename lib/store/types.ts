// The store interface: SQLite (embedded) and Upstash Redis (production) both implement it,
// and the quota, key and waitlist logic is written once against it.

/** A fixed-window counter: `limit` units per `windowMs`, windows aligned to the Unix epoch (so daily ones reset at 00:00 UTC). */
export type Bucket = {
  /** Stable name, also the key prefix: e.g. "free-gen". */
  name: string;
  limit: number;
  windowMs: number;
};

export type Usage = {
  limit: number;
  /** Units used in the current window (never above limit). */
  used: number;
  remaining: number;
  /** Unix time in milliseconds at which the window ends. */
  resetMs: number;
};

export type Take = Usage & {
  /** True when a unit was taken. */
  ok: boolean;
  /** Start (ms) of the window the unit was taken in; a refund goes back to that window. */
  windowStart: number;
};

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

export type WaitlistEntry = {
  email: string;
  useCase: string | null;
  createdAt: string;
};

export interface Store {
  readonly kind: "sqlite" | "upstash";

  /** Atomically take one unit from `bucket` for `id`, unless it is used up. */
  take(bucket: Bucket, id: string, now?: number): Promise<Take>;
  /** Give back a unit taken in the window starting at `windowStart`. */
  refund(bucket: Bucket, id: string, windowStart: number): Promise<void>;
  /** Read usage without taking anything. */
  peek(bucket: Bucket, id: string, now?: number): Promise<Usage>;

  insertKey(key: KeyRecord): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyRecord | null>;
  listKeys(): Promise<KeyRecord[]>;
  /** Returns false when no key has that id. Revoking twice keeps the first time. */
  revokeKey(id: string, at: string): Promise<boolean>;

  /** Adds the email unless present; returns whether it was new. */
  addToWaitlist(entry: WaitlistEntry): Promise<boolean>;
  listWaitlist(): Promise<WaitlistEntry[]>;

  /** Cheap health probe for /api/status; false when the backend is unreachable. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export const DAY_MS = 86_400_000;

export function windowStartOf(bucket: Bucket, now: number): number {
  return Math.floor(now / bucket.windowMs) * bucket.windowMs;
}

/** The usage of a window nothing has been taken from yet (also what status shows while the store is down). */
export function emptyUsage(bucket: Bucket, now = Date.now()): Usage {
  return {
    limit: bucket.limit,
    used: 0,
    remaining: bucket.limit,
    resetMs: windowStartOf(bucket, now) + bucket.windowMs,
  };
}
