// Sliding-window attempt counters in Redis, on @upstash/ratelimit's slidingWindow: the limiter counts the attempt
// and decides in one script, so parallel attempts on any instance cannot pass the limit; a refund is the same
// script with a rate of -1. No ephemeral cache: a refused identity must be asked about again (a refund or the
// window sliding on can let it through).
import { type Duration, Ratelimit } from "@upstash/ratelimit";
import { StoreUnavailable } from "@/lib/errors";
import type { SlidingWindowCounter } from "@/lib/quota/sliding";
import { type Bucket, windowStartOf } from "@/lib/quota/types";
import { call } from "./call";
import { DEFAULT_TIMEOUT_MS, forRatelimit, type RedisClient } from "./client";

export function openUpstashSlidingWindow(redis: RedisClient, opts: { timeoutMs?: number } = {}): SlidingWindowCounter {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limiters = new Map<string, Ratelimit>();
  const limiterOf = (bucket: Bucket) => {
    const id = `${bucket.name}\n${bucket.limit}\n${bucket.windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: forRatelimit(redis),
        limiter: Ratelimit.slidingWindow(bucket.limit, `${bucket.windowMs} ms` as Duration),
        prefix: `darkroom:sw:${bucket.name}`,
        analytics: false,
        enableTelemetry: false,
        timeout: timeoutMs,
        ephemeralCache: false,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  const limit = async (bucket: Bucket, id: string, rate: number) => {
    const res = await call("attempt counter", () => limiterOf(bucket).limit(id, { rate }));
    // limit() resolves with success: true on its own timeout: an attempt counter fails closed instead.
    if (res.reason === "timeout") throw new StoreUnavailable("upstash: attempt counter timed out");
    return res;
  };

  return {
    async take(bucket, id) {
      const res = await limit(bucket, id, 1);
      const remaining = Math.max(0, Math.min(bucket.limit, res.remaining));
      return {
        ok: res.success,
        limit: bucket.limit,
        used: bucket.limit - remaining,
        remaining,
        resetMs: res.reset,
        windowStart: windowStartOf(bucket, res.reset - 1),
      };
    },
    async refund(bucket, id, taken) {
      if (taken.ok) await limit(bucket, id, -1);
    },
  };
}
