// The one interface the flows hand their async work to, whichever tier runs it (docs/scaling.md): inline, in this
// process under the job runner, or BullMQ, where a worker process runs it.
import type { JobWork } from "@/lib/jobs/runner";
import type { JobKind, JobRecord } from "@/lib/jobs/types";

/**
 * A job's work twice over: `spec`, the plain description a worker rebuilds the work from (JSON values and Buffers),
 * and `work`, the same work built here, which the inline tier runs.
 */
export type JobTask = { spec: JobSpec; work: JobWork };

/** What a worker needs to run a job: its kind, and the flow's own description of the work. */
export type JobSpec = { kind: JobKind; [field: string]: unknown };

/** What a tier's queues hold: workers alive, and each queue's depth and oldest wait. */
export type TierStats = {
  workersAlive: number;
  queues: { name: string; depth: number; running: number; oldestAgeSeconds: number }[];
  stalls: number;
  outcomes: Record<string, number>;
};

export interface WorkTier {
  readonly kind: "inline" | "bullmq";
  /** Stores the queued record and gets its work run; `done` settles when this process no longer holds the job. */
  accept(record: JobRecord, task: JobTask): Promise<{ done: Promise<void> }>;
  /**
   * Waits for an accepted job (a synchronous request's) until it ends, `signal` aborts (the caller hung up) or
   * `deadlineMs` passes; in the last two cases the job is cancelled. Resolves with the job's record after.
   */
  waitFor(record: JobRecord, signal: AbortSignal, deadlineMs: number): Promise<JobRecord>;
  /** The queues and workers, for /metrics, the console and status; null when the tier has none (inline). */
  stats(): Promise<TierStats | null>;
  close(): Promise<void>;
}
