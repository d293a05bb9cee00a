// The contract's retry schedule: after a failed attempt, try again after about 5 s, 30 s, 2 min, 10 min and 30 min.

export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000];

/** The first attempt and one per retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each delay is spread by up to this share either way, so deliveries that failed together don't retry together. */
export const RETRY_JITTER = 0.1;

/**
 * The longest the whole schedule takes, from the first attempt to the last retry. A delivery held back by an open
 * breaker (no attempt made, none counted) waits for it at most this long after it was made, then is given up.
 */
export const SCHEDULE_SPAN_MS = Math.round(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) * (1 + RETRY_JITTER));

/**
 * When to try again after `attempts` attempts have failed, or null once the schedule is spent.
 * `random` gives a number in [0, 1); 0.5 gives the delay exactly.
 */
export function nextRetryAt(attempts: number, now: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return now + Math.round(base * (1 + RETRY_JITTER * (2 * random() - 1)));
}
