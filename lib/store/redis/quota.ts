import { type Bucket, type QuotaCounters, type Take, type Usage, windowStartOf } from "@/lib/quota/types";
import { call, MARKER_TTL_MS, markerKey } from "./call";
import type { RedisClient } from "./client";
import { REFUND, TAKE } from "./lua/quota";

/** The units taken from `bucket` by `id` in the window starting at `windowStart`. */
const counterKey = (bucket: Bucket, id: string, windowStart: number) =>
  `darkroom:rl:${bucket.name}:${id}:${windowStart / bucket.windowMs}`;

export function openUpstashQuota(redis: RedisClient): QuotaCounters {
  const scripts = { take: redis.createScript<number>(TAKE), refund: redis.createScript<number>(REFUND) };

  const usageOf = (bucket: Bucket, used: number, windowStart: number): Usage => {
    const clamped = Math.min(bucket.limit, Math.max(0, used));
    return {
      limit: bucket.limit,
      used: clamped,
      remaining: bucket.limit - clamped,
      resetMs: windowStart + bucket.windowMs,
    };
  };

  return {
    async take(bucket, id, now = Date.now(), units = 1): Promise<Take> {
      const windowStart = windowStartOf(bucket, now);
      const answer = await call("take", () =>
        scripts.take.exec(
          [counterKey(bucket, id, windowStart), markerKey()],
          [String(bucket.limit), String(bucket.windowMs), String(MARKER_TTL_MS), String(units)],
        ),
      );
      const ok = answer > 0;
      return { ...usageOf(bucket, Math.abs(answer), windowStart), ok, windowStart };
    },
    async refund(bucket, id, windowStart) {
      await call("refund", () =>
        scripts.refund.exec([counterKey(bucket, id, windowStart), markerKey()], [String(MARKER_TTL_MS)]),
      );
    },
    async peek(bucket, id, now = Date.now()): Promise<Usage> {
      const windowStart = windowStartOf(bucket, now);
      const used = await call("peek", () => redis.get<string>(counterKey(bucket, id, windowStart)));
      return usageOf(bucket, Number(used ?? 0), windowStart);
    },
  };
}
