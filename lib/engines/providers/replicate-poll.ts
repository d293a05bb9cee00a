// Lets the Replicate SDK survive a `Prefer: wait` that runs out: follows urls.get until the prediction ends.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { reportProgress } from "@/lib/engines/progress";

type Prediction = { status?: string; error?: unknown; output?: unknown; urls?: { get?: string } };

const POLL_INTERVAL_MS = 1000;
const RUNNING = new Set(["starting", "processing"]);

/** The SDK itself cannot poll; the caller's signal still bounds the whole wait. */
export function completePredictions(inner: FetchFn): FetchFn {
  return async (input, init) => {
    const res = await inner(input, init);
    if (init?.method !== "POST" || !res.ok) return res;
    let prediction = (await res
      .clone()
      .json()
      .catch(() => null)) as Prediction | null;
    if (!prediction || typeof prediction.status !== "string") return res;
    const signal = init.signal ?? undefined;
    reportProgress({ fraction: null, stage: `replicate: ${prediction.status}` });
    while (RUNNING.has(prediction.status ?? "")) {
      const next = prediction.urls?.get;
      if (!next) throw new ProviderError("malformed", "replicate: running prediction without urls.get");
      await sleep(POLL_INTERVAL_MS, signal);
      const polled = await inner(next, { method: "GET", headers: init.headers, signal });
      if (!polled.ok) return polled;
      prediction = (await polled.json().catch(() => null)) as Prediction | null;
      if (!prediction) throw new ProviderError("malformed", "replicate: unreadable poll answer");
      if (typeof prediction.status === "string")
        reportProgress({ fraction: null, stage: `replicate: ${prediction.status}` });
    }
    if (prediction.status === "failed" || prediction.status === "canceled") {
      const detail = typeof prediction.error === "string" ? prediction.error : prediction.status;
      // Replicate's safety checker fails the prediction with an NSFW message rather than an HTTP error.
      if (/nsfw/i.test(detail)) throw new ModerationError(`replicate: ${detail}`);
      throw new ProviderError("http", `replicate: prediction ${prediction.status}: ${detail}`);
    }
    return Response.json(prediction, { status: 200 });
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
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
