// An in-process fixed-window counter for the per-minute status guard on the embedded store: status is polled
// often, and a disk write per poll buys nothing on one machine. (With Upstash the guard lives in Redis.)
import { type Bucket, type Take, windowStartOf } from "@/lib/store/types";

export type WindowCounter = { take(bucket: Bucket, id: string, now?: number): Promise<Take> };

export function createMemoryWindow(maxKeys = 100_000): WindowCounter {
  const counts = new Map<string, { start: number; used: number }>();
  return {
    async take(bucket, id, now = Date.now()) {
      const start = windowStartOf(bucket, now);
      const key = `${bucket.name}\0${id}`;
      let entry = counts.get(key);
      if (!entry || entry.start !== start) {
        // Expired windows are dropped as the map fills, so memory stays bounded under many identities.
        if (!entry && counts.size >= maxKeys) pruneExpired(counts, start, maxKeys);
        entry = { start, used: 0 };
        counts.set(key, entry);
      }
      const ok = entry.used < bucket.limit;
      if (ok) entry.used++;
      return {
        ok,
        limit: bucket.limit,
        used: entry.used,
        remaining: Math.max(0, bucket.limit - entry.used),
        resetMs: start + bucket.windowMs,
        windowStart: start,
      };
    },
  };
}

function pruneExpired(counts: Map<string, { start: number }>, current: number, maxKeys: number) {
  for (const [key, entry] of counts) if (entry.start < current) counts.delete(key);
  // Still full of live windows: drop the oldest entries rather than grow without bound.
  for (const key of counts.keys()) {
    if (counts.size < maxKeys) break;
    counts.delete(key);
  }
}
