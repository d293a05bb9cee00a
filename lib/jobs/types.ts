// Async jobs: the record every instance can read and change, and the progress it reports.
import type { HeldUnit } from "@/lib/quota/types";

export type JobKind = "generate" | "enhance";
export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";
export const ACTIVE_STATUSES: readonly JobStatus[] = ["queued", "running"];
export const ALL_STATUSES: readonly JobStatus[] = ["queued", "running", "succeeded", "failed", "canceled"];

export function isFinished(status: JobStatus): boolean {
  return !ACTIVE_STATUSES.includes(status);
}

export type JobProgress = {
  /** Share of the work done, when the engine can tell (tiles, steps); else null. */
  fraction: number | null;
  /** 1 for the next job to start, while waiting; else null. */
  queue_position: number | null;
  stage: string;
};

export type JobWebhookState = {
  attempts: number;
  last_status: number | null;
  delivered_at: string | null;
  /** Why the last attempt got no answer or was not made; absent otherwise. */
  last_error?: string;
};

export type JobRecord = {
  id: string;
  kind: JobKind;
  /** The caller identity that created the job: only it can see or cancel the job. */
  owner: string;
  status: JobStatus;
  created_at: string;
  started_at?: string;
  finished_at?: string;
  progress: JobProgress;
  /** Exactly the 200 body the synchronous call would have given. */
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
  webhook?: JobWebhookState;
  /** What follows is never shown to callers. */
  internal: {
    /** The instance running the job, and until when it promises to be alive (renewed while it is). */
    instance: string;
    leaseUntil: number;
    units: HeldUnit[];
    webhookUrl?: string;
    /** Key id, for the webhook's signing secret and the usage history. */
    keyId?: string;
    /** For the usage history, recorded when the job ends: the caller's plan and the model asked for. */
    plan?: "free" | "pro";
    model?: string;
    /** A synchronous request's job (work tier): the request answers it and counts its usage, not the job. */
    sync?: boolean;
  };
};

/** The job as callers see it: not who owns it (a key id or an address), nor anything internal. */
export type JobView = Omit<JobRecord, "internal" | "owner">;

export function viewOf(job: JobRecord): JobView {
  const { internal: _internal, owner: _owner, ...view } = job;
  return view;
}

/** A finished job can be read for this long. */
export const FINISHED_JOB_TTL_MS = 24 * 60 * 60 * 1000;
