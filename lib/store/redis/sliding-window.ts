// Sliding-window attempt counters in Redis, on @upstash/ratelimit's slidingWindow: the limiter counts the attempt
// and decides in one script, so parallel attempts on any instance cannot pass the limit; a refund is the same
// script with a rate of -1. No ephemeral cache: a refused identity must be asked about again (a refund or the
// window sliding on can let it through).
import { Ratelimit } from "@upstash/ratelimit";
import type { SlidingWindowCounter } from "@/lib/quota/sliding";
import { DEFAULT_TIMEOUT_MS, type RedisClient } from "./client";
import { bucketLimiters, takeOf } from "./ratelimit";

export function openUpstashSlidingWindow(redis: RedisClient, opts: { timeoutMs?: number } = {}): SlidingWindowCounter {
  // limit() resolves with success: true on its own timeout: an attempt counter fails closed instead.
  const limit = bucketLimiters(redis, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, {
    what: "attempt counter",
    algorithm: Ratelimit.slidingWindow,
    prefix: "darkroom:sw",
    ephemeralCache: false,
  });
  return {
    take: async (bucket, id) => takeOf(bucket, await limit(bucket, id, 1)),
    async refund(bucket, id, taken) {
      if (taken.ok) await limit(bucket, id, -1);
    },
  };
}
