// The two small jobs every polling provider call needs: wait between polls without outliving the caller, and
// tell the provider to stop once the caller has gone.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import { ProviderError } from "@/lib/engines/failures";

/** How long a cancel may take once the caller has gone. */
const CANCEL_TIMEOUT_MS = 5000;

/** Waits `ms`, or rejects with the signal's reason as soon as it fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Sends a best-effort cancel on a signal of its own (the caller's has fired); it never delays or fails an answer. */
export function cancelQuietly(fetch: FetchFn, url: string, init: RequestInit): Promise<void> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) })
    .then((res) => res.body?.cancel())
    .catch(() => undefined);
}

/**
 * Asks `poll` every `intervalMs` until it answers something other than undefined: at most
 * `ceil(timeoutMs / intervalMs) + 1` times, and never past the signal. Running out of polls is a timeout.
 */
export async function pollBounded<T>(
  what: string,
  bounds: { intervalMs: number; timeoutMs: number; signal: AbortSignal },
  poll: () => Promise<T | undefined>,
): Promise<T> {
  const maxPolls = Math.ceil(bounds.timeoutMs / bounds.intervalMs) + 1;
  for (let n = 1; n <= maxPolls; n++) {
    await sleep(bounds.intervalMs, bounds.signal);
    const answer = await poll();
    if (answer !== undefined) return answer;
  }
  throw new ProviderError("timeout", `${what}: not done after ${maxPolls} polls`);
}
