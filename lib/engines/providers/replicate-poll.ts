// Follows a Replicate prediction (or an operator's Cog server's) to its end: polls urls.get while it runs, cancels
// it through urls.cancel when the caller gives up, and maps its failures. The generation SDK's fetch and the
// enhance route share it.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { reportProgress } from "@/lib/engines/progress";
import type { WorkProgress } from "@/lib/engines/types";
import { cancelQuietly, sleep } from "./poll";

export type Prediction = {
  id?: string;
  status?: string;
  error?: unknown;
  output?: unknown;
  urls?: { get?: string; cancel?: string };
};

export const POLL_INTERVAL_MS = 1000;
const RUNNING = new Set(["starting", "processing"]);

export type SettleOptions = {
  fetch: FetchFn;
  /** Sent with every poll and the cancel: the API's Authorization. */
  headers: HeadersInit | undefined;
  signal: AbortSignal | undefined;
  onProgress?: (progress: WorkProgress) => void;
  intervalMs?: number;
};

/** The SDK itself cannot poll; the caller's signal still bounds the whole wait. */
export function completePredictions(inner: FetchFn): FetchFn {
  return async (input, init) => {
    const res = await inner(input, init);
    if (init?.method !== "POST" || !res.ok) return res;
    const prediction = (await res
      .clone()
      .json()
      .catch(() => null)) as Prediction | null;
    if (!prediction || typeof prediction.status !== "string") return res;
    const settled = await settlePrediction(prediction, {
      fetch: inner,
      headers: init.headers,
      signal: init.signal ?? undefined,
      onProgress: reportProgress,
    });
    return Response.json(settled, { status: 200 });
  };
}

/**
 * The prediction once it has succeeded: polled every `intervalMs` while it starts or runs (the signal bounds the
 * loop), cancelled when the signal fires, thrown as a failure when it fails, is cancelled or aborted.
 */
export async function settlePrediction(first: Prediction, options: SettleOptions): Promise<Prediction> {
  const { fetch, headers, signal, onProgress } = options;
  let prediction = first;
  const tell = (p: Prediction) => {
    if (typeof p.status === "string") onProgress?.({ fraction: null, stage: `replicate: ${p.status}` });
  };
  tell(prediction);
  const onAbort = () => {
    const cancel = prediction.urls?.cancel;
    if (cancel) void cancelQuietly(fetch, cancel, { method: "POST", headers });
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (RUNNING.has(prediction.status ?? "")) {
      const next = prediction.urls?.get;
      if (!next) throw new ProviderError("malformed", "replicate: running prediction without urls.get");
      await sleep(options.intervalMs ?? POLL_INTERVAL_MS, signal);
      const polled = await fetch(next, { method: "GET", headers, signal });
      if (!polled.ok) {
        const text = await polled.text().catch(() => "");
        const kind = polled.status === 429 ? "capacity" : "http";
        throw new ProviderError(kind, `replicate poll ${polled.status}: ${text.slice(0, 300)}`, polled.status);
      }
      const body = (await polled.json().catch(() => null)) as Prediction | null;
      if (!body) throw new ProviderError("malformed", "replicate: unreadable poll answer");
      prediction = { ...body, urls: body.urls ?? prediction.urls };
      tell(prediction);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  if (prediction.status !== "succeeded") {
    const detail = typeof prediction.error === "string" ? prediction.error : String(prediction.status);
    // Replicate's safety checker fails the prediction with an NSFW message rather than an HTTP error.
    if (/nsfw/i.test(detail)) throw new ModerationError(`replicate: ${detail}`);
    throw new ProviderError("http", `replicate: prediction ${String(prediction.status)}: ${detail}`);
  }
  return prediction;
}
