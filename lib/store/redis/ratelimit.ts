// The backend's @upstash/ratelimit limiters, shared by the per-minute guards (fixed window) and the attempt counters
// (sliding window): one limiter per bucket, made on first use on the backend's client, and one take that turns the
// library's own timeout (which it answers with success: true) into StoreUnavailable.
import { type Duration, Ratelimit } from "@upstash/ratelimit";
import { StoreUnavailable } from "@/lib/errors";
import { type Bucket, type Take, windowStartOf } from "@/lib/quota/types";
import { call } from "./call";
import { forRatelimit, type RedisClient } from "./client";

/** How one family of limiters counts: its algorithm, its key prefix, and whether refusals may be cached. */
export type LimiterShape = {
  /** What the errors call it ("guard", "attempt counter"). */
  what: string;
  algorithm: (limit: number, window: Duration) => ConstructorParameters<typeof Ratelimit>[0]["limiter"];
  prefix: string;
  ephemeralCache: Map<string, number> | false;
};

/** Takes `rate` (1, or -1 for a refund) from `id` in `bucket`: the library's answer, or StoreUnavailable. */
export type LimitFn = (bucket: Bucket, id: string, rate?: number) => ReturnType<Ratelimit["limit"]>;

export function bucketLimiters(redis: RedisClient, timeoutMs: number, shape: LimiterShape): LimitFn {
  const limiters = new Map<string, Ratelimit>();
  const limiterOf = (bucket: Bucket) => {
    const id = `${bucket.name}\n${bucket.limit}\n${bucket.windowMs}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: forRatelimit(redis),
        limiter: shape.algorithm(bucket.limit, `${bucket.windowMs} ms` as Duration),
        prefix: `${shape.prefix}:${bucket.name}`,
        analytics: false,
        enableTelemetry: false,
        timeout: timeoutMs,
        ephemeralCache: shape.ephemeralCache,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return async (bucket, id, rate) => {
    const res = await call(shape.what, () => limiterOf(bucket).limit(id, rate === undefined ? undefined : { rate }));
    if (res.reason === "timeout") throw new StoreUnavailable(`upstash: ${shape.what} timed out`);
    return res;
  };
}

/** The library's answer as a take of `bucket`. */
export function takeOf(bucket: Bucket, res: Awaited<ReturnType<LimitFn>>): Take {
  const remaining = Math.max(0, Math.min(bucket.limit, res.remaining));
  return {
    ok: res.success,
    limit: bucket.limit,
    used: bucket.limit - remaining,
    remaining,
    resetMs: res.reset,
    windowStart: windowStartOf(bucket, res.reset - 1),
  };
}
