// An in-process fixed-window counter for the per-minute status guard on the embedded store: status is polled
// often, and a disk write per poll buys nothing on one machine. (With Upstash the guard lives in Redis.)
import { type Bucket, type Take, windowStartOf } from "@/lib/quota/types";

export type WindowCounter = { take(bucket: Bucket, id: string, now?: number): Promise<Take> };

export type MemoryWindow = WindowCounter & {
  /** Identities counted in the current windows, over all buckets. */
  size(): number;
};

/** One bucket's current window. Only the current window is kept, so a new window drops the old one whole. */
type Generation = { start: number; counts: Map<string, number> };

/**
 * Every take is O(1): a window that ends is replaced by an empty map rather than scanned for expired entries,
 * and a bucket at `maxKeys` identities within one window forgets its oldest identity (Map keeps insertion order).
 */
export function createMemoryWindow(maxKeys = 100_000): MemoryWindow {
  const generations = new Map<string, Generation>();
  return {
    async take(bucket, id, now = Date.now()) {
      const slot = `${bucket.name}\0${bucket.windowMs}`;
      let gen = generations.get(slot);
      let start = windowStartOf(bucket, now);
      if (!gen || start > gen.start) {
        gen = { start, counts: new Map() };
        generations.set(slot, gen);
      }
      // A clock that steps back counts against the current window rather than reopening an old one.
      start = gen.start;
      let used = gen.counts.get(id);
      if (used === undefined) {
        if (gen.counts.size >= maxKeys) gen.counts.delete(gen.counts.keys().next().value as string);
        used = 0;
      }
      const ok = used < bucket.limit;
      if (ok) used++;
      gen.counts.set(id, used);
      return {
        ok,
        limit: bucket.limit,
        used,
        remaining: Math.max(0, bucket.limit - used),
        resetMs: start + bucket.windowMs,
        windowStart: start,
      };
    },
    size() {
      let total = 0;
      for (const gen of generations.values()) total += gen.counts.size;
      return total;
    },
  };
}
