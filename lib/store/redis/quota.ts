// Quota counters in Redis, shared by every instance, and the helpers the other Redis repositories share.
// Quota windows are plain counters, keyed as @upstash/ratelimit's fixed window keyed them, so counts carry over.
import crypto from "node:crypto";
import type { KeyRecord } from "@/lib/auth/types";
import { StoreUnavailable } from "@/lib/errors";
import { type Bucket, type QuotaCounters, type Take, type Usage, windowStartOf } from "@/lib/quota/types";
import type { RedisClient } from "./client";
import { REFUND, TAKE } from "./lua/quota";

export const KEY_INDEX = "darkroom:keys"; // hash: key id → key hash; also the list of all keys
export const recordKey = (hash: string) => `darkroom:key:${hash}`; // hash: the KeyRecord's fields
export const WAITLIST = "darkroom:waitlist"; // hash: email → JSON { useCase, createdAt }
/** The units taken from `bucket` by `id` in the window starting at `windowStart`. */
const counterKey = (bucket: Bucket, id: string, windowStart: number) =>
  `darkroom:rl:${bucket.name}:${id}:${windowStart / bucket.windowMs}`;
/** Where a script remembers its answer to one call, so a retried request doesn't apply the call twice. */
export const markerKey = () => `darkroom:op:${crypto.randomUUID()}`;
export const MARKER_TTL_MS = 60_000;

export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreUnavailable) throw err;
    throw new StoreUnavailable(`upstash: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** HGETALL replies come back as a flat [field, value, …] array with deserialization off. */
export function pairs(raw: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
  }
  return out;
}

export function toKeyRecord(raw: unknown): KeyRecord | null {
  const f = Object.fromEntries(pairs(raw));
  if (!f.id || !f.hash) return null;
  return {
    id: f.id,
    label: f.label ?? "",
    hash: f.hash,
    last4: f.last4 ?? "",
    plan: "pro",
    createdAt: f.createdAt ?? "",
    revokedAt: f.revokedAt ?? null,
    ...(f.email && { email: f.email }),
    ...(f.dailyLimit && { dailyLimit: Number(f.dailyLimit) }),
    ...(f.webhookSecret && { webhookSecret: f.webhookSecret }),
  };
}

export const byCreated =
  <T extends { createdAt: string }>(tie: (x: T) => string) =>
  (a: T, b: T) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;

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
