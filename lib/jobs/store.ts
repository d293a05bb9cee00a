// Where job records live: SQLite (embedded) or Redis (Upstash), behind one interface.
import type { JobRecord, JobStatus } from "@/lib/jobs/types";
import type { NewDelivery } from "@/lib/webhooks/outbox";

/** The webhook delivery a job's end makes, from the record as it ends (lib/jobs/webhook.ts). */
export type DeliveryOf = (next: JobRecord) => NewDelivery;

export type JobPatch = Partial<Omit<JobRecord, "id" | "kind" | "owner" | "created_at" | "internal">> & {
  internal?: Partial<JobRecord["internal"]>;
};

export interface JobStore {
  create(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /** Several jobs in one store call (SQLite `IN`, one Redis script call); missing ids are absent from the map. */
  getMany(ids: readonly string[]): Promise<Map<string, JobRecord>>;
  /**
   * Applies `patch` atomically, only while the job's status is one of `from`; returns the new record, or null when
   * the job is missing or in another status (someone else moved it first). With `deliveryOf`, the delivery it
   * makes of the new record goes into the webhook outbox in the same write: both land, or neither does.
   */
  transition(
    id: string,
    from: readonly JobStatus[],
    patch: JobPatch,
    deliveryOf?: DeliveryOf,
  ): Promise<JobRecord | null>;
  /** Unfinished jobs whose instance's lease ran out before `now`, at most `limit` of them. */
  listExpired(now: number, limit: number): Promise<JobRecord[]>;
  /** Forgets finished jobs older than their read window; returns how many. */
  prune(now: number): Promise<number>;
}

export function applyPatch(job: JobRecord, patch: JobPatch): JobRecord {
  return { ...job, ...patch, internal: { ...job.internal, ...patch.internal } };
}
