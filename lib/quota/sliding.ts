// A sliding-window counter for attempts (failed admin sign-ins, cron calls): at most `limit` in any `windowMs`,
// counted as @upstash/ratelimit's slidingWindow counts, the current fixed window plus the previous one weighted by
// how much of it still lies inside the sliding window. Every take is atomic, so parallel attempts cannot pass the
// limit; a take can be given back.
import type { Bucket, Take } from "@/lib/quota/types";

export interface SlidingWindowCounter {
  /** Atomically counts one attempt of `id` unless `limit` are already in the sliding window. */
  take(bucket: Bucket, id: string, now?: number): Promise<Take>;
  /** Gives back an attempt taken with `take` (it turned out not to count). */
  refund(bucket: Bucket, id: string, taken: Take): Promise<void>;
}

/** The weighted count of the sliding window ending at `now`, from its two fixed windows' counts. */
export function slidingCount(bucket: Bucket, now: number, current: number, previous: number): number {
  const intoCurrent = (now % bucket.windowMs) / bucket.windowMs;
  return current + Math.floor((1 - intoCurrent) * previous);
}
