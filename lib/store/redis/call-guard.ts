// Per-minute guards in Redis, shared by every instance, on @upstash/ratelimit's fixed window. Guards only ever
// refuse, never refund, which is exactly what the library does; the daily quotas, which refund, are the store's.
import { Ratelimit } from "@upstash/ratelimit";
import type { WindowCounter } from "@/lib/quota/memory-window";
import { DEFAULT_TIMEOUT_MS, type RedisClient } from "./client";
import { bucketLimiters, takeOf } from "./ratelimit";

export function createUpstashGuard(redis: RedisClient, opts: { timeoutMs?: number } = {}): WindowCounter {
  // The backend's one client: its single quick retry could count a call whose answer was lost twice, which only
  // errs toward refusing.
  const limit = bucketLimiters(redis, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, {
    what: "guard",
    // fixedWindow keys its counter by Math.floor(Date.now() / window): epoch-aligned, like windowStartOf().
    algorithm: Ratelimit.fixedWindow,
    prefix: "darkroom:guard",
    // Refused identities may be cached in process: a guard never refunds, so the cache cannot go stale.
    ephemeralCache: new Map(),
  });
  return {
    // limit() resolves with success: true on its own timeout; a guard fails open on outages by design, so the
    // caller is told the store is unavailable and decides.
    take: async (bucket, id) => takeOf(bucket, await limit(bucket, id)),
  };
}
