// The work tier's names in Redis and its one scheduling table.
import type { Plan } from "@/lib/auth/types";
import type { JobKind } from "@/lib/jobs/types";

/** One BullMQ queue per kind of work, so generation and enhancement workers can be sized apart. */
export const QUEUE_OF_KIND: Record<JobKind, string> = { generate: "darkroom-generate", enhance: "darkroom-enhance" };

/** BullMQ priorities (lower first): Pro work is taken before Free work; within a plan, first come first served. */
export const PRIORITY_OF_PLAN: Record<Plan, number> = { pro: 1, free: 10 };

/** Live workers: a sorted set of worker id → the time its heartbeat lapses. */
export const WORKERS_KEY = "darkroom:tier:workers";
/** Counters kept by the workers: jobs by outcome, and stalls (a worker died or froze mid-job). */
export const OUTCOMES_KEY = "darkroom:tier:outcomes";
export const STALLS_KEY = "darkroom:tier:stalls";

/** How often a worker writes its heartbeat, and how long one lasts. */
export const HEARTBEAT_EVERY_MS = 5_000;
export const HEARTBEAT_TTL_MS = 15_000;

/** The temporary area's keys of a job's inputs: its unguessable id (128 random bits) and an index. */
export function tempPrefixOf(jobId: string): string {
  return `wt_${jobId.replace(/^job_/, "")}`;
}
