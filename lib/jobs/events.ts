// A job's life as server-sent events: the current state first, a `progress` event on each change, then exactly
// one terminal event, and the stream closes. It reads the shared store, so it works on any instance.

import type { JobStore } from "@/lib/jobs/store";
import { describeError, log } from "@/lib/log";
import { isFinished, type JobRecord, viewOf } from "./types";

const POLL_MS = 250;
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

export function jobEvents(jobs: JobStore, first: JobRecord, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const close = () => {
        if (closed) return;
        closed = true;
        controller.close();
      };
      signal.addEventListener("abort", close, { once: true });
      let job = first;
      let last = stateOf(job);
      let lastSent = Date.now();
      send(progressEvent(job));
      try {
        while (!closed && !isFinished(job.status)) {
          await new Promise((r) => setTimeout(r, POLL_MS));
          const next = await jobs.get(job.id).catch((err) => {
            log.warn("job events: read failed", { job_id: job.id, ...describeError(err) });
            return job;
          });
          if (!next) break;
          job = next;
          const state = stateOf(job);
          if (state !== last && !isFinished(job.status)) {
            send(progressEvent(job));
            lastSent = Date.now();
          } else if (Date.now() - lastSent >= HEARTBEAT_MS) {
            send(": keep-alive\n\n");
            lastSent = Date.now();
          }
          last = state;
        }
        if (isFinished(job.status)) send(terminalEvent(job));
      } finally {
        close();
      }
    },
    cancel() {
      closed = true;
    },
  });
}
