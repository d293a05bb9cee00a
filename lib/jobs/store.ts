// Where job records live: SQLite (embedded) or Redis (Upstash), behind one interface.
import type { JobRecord, JobStatus } from "@/lib/jobs/types";

export type JobPatch = Partial<Omit<JobRecord, "id" | "kind" | "owner" | "created_at" | "internal">> & {
  internal?: Partial<JobRecord["internal"]>;
};

export interface JobStore {
  create(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /**
   * Applies `patch` atomically, only while the job's status is one of `from`; returns the new record, or null when
   * the job is missing or in another status (someone else moved it first).
   */
  transition(id: string, from: readonly JobStatus[], patch: JobPatch): Promise<JobRecord | null>;
  /** Unfinished jobs whose instance's lease ran out before `now`, at most `limit` of them. */
  listExpired(now: number, limit: number): Promise<JobRecord[]>;
  /** Forgets finished jobs older than their read window; returns how many. */
  prune(now: number): Promise<number>;
}

export function applyPatch(job: JobRecord, patch: JobPatch): JobRecord {
  return { ...job, ...patch, internal: { ...job.internal, ...patch.internal } };
}
