// A job's life as server-sent events: the current state first, a `progress` event on each change, then exactly
// one terminal event, and the stream closes. The instance's job watcher (watch.ts) reads the shared store once per
// tick for all of its streams, so it works on any instance and costs the same however many watch.
import { sseEvent, sseStream } from "@/lib/streams/sse";
import { isFinished, type JobRecord, viewOf } from "./types";
import type { JobWatcher } from "./watch";

function terminalEvent(job: JobRecord): string {
  if (job.status === "succeeded") return sseEvent("succeeded", job.result ?? {});
  if (job.status === "failed") return sseEvent("failed", job.error ?? { code: "server_error", message: "" });
  return sseEvent("canceled", viewOf(job));
}

const progressEvent = (job: JobRecord) => sseEvent("progress", { status: job.status, progress: job.progress });
const stateOf = (job: JobRecord) => JSON.stringify([job.status, job.progress]);

/** The job's events until it finishes, the client leaves or `signal` aborts; `onClose` runs once, when it ends. */
export function jobEvents(
  watcher: JobWatcher,
  first: JobRecord,
  signal: AbortSignal,
  onClose: () => void = () => undefined,
): ReadableStream<Uint8Array> {
  let unwatch = () => {};
  const stream = sseStream(() => {
    onClose();
    unwatch();
    signal.removeEventListener("abort", stream.close);
  });
  let last = stateOf(first);
  const hear = (job: JobRecord | null) => {
    if (!job) return stream.close();
    if (isFinished(job.status)) {
      stream.send(terminalEvent(job));
      return stream.close();
    }
    const state = stateOf(job);
    if (state !== last) stream.send(progressEvent(job));
    last = state;
  };
  stream.send(progressEvent(first));
  if (isFinished(first.status)) {
    stream.send(terminalEvent(first));
    stream.close();
    return stream.body;
  }
  stream.keepAlive();
  unwatch = watcher.watch(first.id, hear);
  signal.addEventListener("abort", stream.close, { once: true });
  if (signal.aborted) stream.close();
  return stream.body;
}
