// Per-minute guards in Redis, shared by every instance, on @upstash/ratelimit's fixed window. Guards only ever
// refuse, never refund, which is exactly what the library does; the daily quotas, which refund, are the store's.
import { type Duration, Ratelimit } from "@upstash/ratelimit";
import { StoreUnavailable } from "@/lib/errors";
import type { WindowCounter } from "@/lib/quota/memory-window";
import { type Bucket, windowStartOf } from "@/lib/quota/types";
import { call } from "./call";
import { DEFAULT_TIMEOUT_MS, forRatelimit, type RedisClient } from "./client";

export function createUpstashGuard(redis: RedisClient, opts: { timeoutMs?: number } = {}): WindowCounter {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // The backend's one client: its single quick retry could count a call whose answer was lost twice, which only
  // errs toward refusing.
  const limiters = new Map<string, Ratelimit>();
  const limiterOf = (bucket: Bucket) => {
    const id = `${bucket.name}\n${bucket.limit}\n${bucket.windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: forRatelimit(redis),
        // fixedWindow keys its counter by Math.floor(Date.now() / window): epoch-aligned, like windowStartOf().
        limiter: Ratelimit.fixedWindow(bucket.limit, `${bucket.windowMs} ms` as Duration),
        prefix: `darkroom:guard:${bucket.name}`,
        analytics: false,
        enableTelemetry: false,
        timeout: timeoutMs,
        // Refused identities may be cached in process: a guard never refunds, so the cache cannot go stale.
        ephemeralCache: new Map(),
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return {
    async take(bucket, id) {
      const res = await call("guard", () => limiterOf(bucket).limit(id));
      // limit() resolves with success: true on its own timeout; a guard fails open on outages by design, so the
      // caller is told the store is unavailable and decides.
      if (res.reason === "timeout") throw new StoreUnavailable("upstash: guard timed out");
      return {
        ok: res.success,
        limit: bucket.limit,
        used: bucket.limit - Math.max(0, res.remaining),
        remaining: Math.max(0, res.remaining),
        resetMs: res.reset,
        windowStart: windowStartOf(bucket, res.reset - 1),
      };
    },
  };
}
