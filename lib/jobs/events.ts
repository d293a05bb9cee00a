// A job's life as server-sent events: the current state first, a `progress` event on each change, then exactly
// one terminal event, and the stream closes. The instance's job watcher (watch.ts) reads the shared store once per
// tick for all of its streams, so it works on any instance and costs the same however many watch.
import { isFinished, type JobRecord, viewOf } from "./types";
import type { JobWatcher } from "./watch";

const HEARTBEAT_MS = 15_000;

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function terminalEvent(job: JobRecord): string {
  if (job.status === "succeeded") return event("succeeded", job.result ?? {});
  if (job.status === "failed") return event("failed", job.error ?? { code: "server_error", message: "" });
  return event("canceled", viewOf(job));
}

const progressEvent = (job: JobRecord) => event("progress", { status: job.status, progress: job.progress });
const stateOf = (job: JobRecord) => JSON.stringify([job.status, job.progress]);

/** The job's events until it finishes, the client leaves or `signal` aborts; `onClose` runs once, when it ends. */
export function jobEvents(
  watcher: JobWatcher,
  first: JobRecord,
  signal: AbortSignal,
  onClose: () => void = () => undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let last = stateOf(first);
      let heartbeat: NodeJS.Timeout | undefined;
      const send = (text: string) => {
        if (closed) return;
        controller.enqueue(encoder.encode(text));
        heartbeat?.refresh();
      };
      const close = () => {
        if (closed) return;
        closed = true;
        onClose();
        unwatch();
        clearInterval(heartbeat);
        signal.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          // The client cancelled: the stream is closed already.
        }
      };
      stop = close;
      const hear = (job: JobRecord | null) => {
        if (!job) return close();
        if (isFinished(job.status)) {
          send(terminalEvent(job));
          return close();
        }
        const state = stateOf(job);
        if (state !== last) send(progressEvent(job));
        last = state;
      };
      let unwatch = () => {};
      send(progressEvent(first));
      if (isFinished(first.status)) {
        send(terminalEvent(first));
        return close();
      }
      heartbeat = setInterval(() => send(": keep-alive\n\n"), HEARTBEAT_MS);
      heartbeat.unref?.();
      unwatch = watcher.watch(first.id, hear);
      signal.addEventListener("abort", close, { once: true });
      if (signal.aborted) close();
    },
    cancel() {
      stop();
    },
  });
}
