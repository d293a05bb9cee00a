// Quota counting's own types: fixed-window buckets, their usage, and the port the store backends implement.

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
  /** True when the units were taken. */
  ok: boolean;
  /** Start (ms) of the window the unit was taken in; a refund goes back to that window. */
  windowStart: number;
};

/** A unit of quota a request or a job holds, enough for any instance to give it back. */
export type HeldUnit = {
  bucket: { name: string; limit: number; windowMs: number };
  identity: string;
  windowStart: number;
};

/** The atomic counters quotas are kept in (one backend per kind implements it). */
export interface QuotaCounters {
  /**
   * Atomically take `units` units (default 1) from `bucket` for `id`, all or none: refused, and nothing taken, when
   * fewer are left.
   */
  take(bucket: Bucket, id: string, now?: number, units?: number): Promise<Take>;
  /** Give back a unit taken in the window starting at `windowStart`. */
  refund(bucket: Bucket, id: string, windowStart: number): Promise<void>;
  /** Read usage without taking anything. */
  peek(bucket: Bucket, id: string, now?: number): Promise<Usage>;
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

/** Whole seconds until `resetMs`, at least 1 so clients never spin. */
export function secondsUntil(resetMs: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((resetMs - now) / 1000));
}
