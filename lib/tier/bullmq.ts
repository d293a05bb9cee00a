// The BullMQ tier as the web instances see it: a job's record is stored, its work described (inputs through the
// storage's temporary area) and added to its kind's queue under the job's own id, so adding it twice is a no-op.
// Workers (lib/tier/consumer.ts, `npm run worker`) run it. Synchronous requests wait for their job through
// QueueEvents, within their own deadline, and cancel it when their caller hangs up.
import { Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { StoreUnavailable } from "@/lib/errors";
import type { JobRunner } from "@/lib/jobs/runner";
import type { JobStore } from "@/lib/jobs/store";
import { isFinished, type JobKind, type JobRecord } from "@/lib/jobs/types";
import type { TempArea } from "@/lib/storage/types";
import { OUTCOMES_KEY, PRIORITY_OF_PLAN, QUEUE_OF_KIND, STALLS_KEY, tempPrefixOf, WORKERS_KEY } from "./names";
import { dropJobData, packJobData } from "./payload";
import { tierConnection } from "./redis";
import type { JobTask, TierStats, WorkTier } from "./types";

const KINDS = Object.keys(QUEUE_OF_KIND) as JobKind[];

/** Finished jobs stay in BullMQ only briefly: the job record in the store is what callers read. */
const KEEP_FINISHED = { removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600 } };

export type BullmqTierDeps = {
  redisUrl: string;
  jobs: Pick<JobStore, "create" | "get">;
  runner: Pick<JobRunner, "cancel" | "failLost">;
  temp: TempArea;
};

export function createBullmqTier(deps: BullmqTierDeps): WorkTier {
  // Connected on first use, so a CLI that builds the services without touching jobs opens nothing.
  let opened: ReturnType<typeof openQueues> | undefined;
  const open = () => {
    opened ??= openQueues(deps.redisUrl);
    return opened;
  };

  const accept = async (record: JobRecord, task: JobTask) => {
    const data = await packJobData(task.spec, deps.temp, tempPrefixOf(record.id));
    try {
      await deps.jobs.create(record);
      await open().queues[record.kind].add(record.kind, data, {
        jobId: record.id,
        priority: PRIORITY_OF_PLAN[record.internal.plan ?? "free"],
      });
    } catch (err) {
      await dropJobData(data, deps.temp);
      if (err instanceof StoreUnavailable) throw err;
      throw new StoreUnavailable("the work queue is unavailable", { cause: err });
    }
    return { done: Promise.resolve() };
  };

  return {
    kind: "bullmq",
    accept,
    async waitFor(record, signal, deadlineMs) {
      const { queues, eventsOf } = open();
      const waiting = eventsOf(record.kind);
      const job = await Job.fromId(queues[record.kind], record.id);
      const ended = await untilEnd(job, waiting, signal, deadlineMs);
      // The caller hung up or the deadline passed: a queued job is dropped (units back), a running one stopped.
      if (ended === "gone") await deps.runner.cancel(record.id);
      const final = await deps.jobs.get(record.id);
      if (final && !isFinished(final.status) && ended === "failed") {
        // BullMQ failed it (its workers died more often than the limit): the record ends with it, units back.
        return (await deps.runner.failLost(record.id, LOST_MESSAGE)) ?? (await deps.jobs.get(record.id)) ?? final;
      }
      return final ?? record;
    },
    async stats() {
      const { redis, queues } = open();
      return readStats(redis, queues);
    },
    async close() {
      if (!opened) return;
      const { redis, queues, events } = opened;
      await Promise.all([...events.values()].map((e) => e.close().catch(() => undefined)));
      await Promise.all(Object.values(queues).map((q) => q.close().catch(() => undefined)));
      redis.disconnect();
    },
  };
}

/** The producer's connection, a Queue per kind, and a QueueEvents per kind made when a request first waits. */
function openQueues(redisUrl: string) {
  const redis = tierConnection(redisUrl, "producer");
  // Redis errors reach the callers as StoreUnavailable; ioredis's own reports would otherwise be unhandled.
  redis.on("error", () => undefined);
  const queues = Object.fromEntries(
    KINDS.map((kind) => [
      kind,
      new Queue(QUEUE_OF_KIND[kind], { connection: redis, defaultJobOptions: KEEP_FINISHED }),
    ]),
  ) as Record<JobKind, Queue>;
  for (const queue of Object.values(queues)) queue.on("error", () => undefined);
  const events = new Map<JobKind, QueueEvents>();
  const eventsOf = (kind: JobKind) => {
    let found = events.get(kind);
    if (!found) {
      found = new QueueEvents(QUEUE_OF_KIND[kind], { connection: tierConnection(redisUrl, "blocking") });
      found.on("error", () => undefined);
      events.set(kind, found);
    }
    return found;
  };
  return { redis, queues, events, eventsOf };
}

export const LOST_MESSAGE = "The workers running this job stopped too many times. Please submit it again.";

/** Waits for a job's end through QueueEvents: "done", "failed" (by BullMQ), or "gone" (aborted, or past deadline). */
async function untilEnd(
  job: Job | undefined,
  events: QueueEvents,
  signal: AbortSignal,
  deadlineMs: number,
): Promise<"done" | "failed" | "gone"> {
  if (!job) return "failed";
  if (signal.aborted) return "gone";
  let onAbort: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<"gone">((resolve) => {
    onAbort = () => resolve("gone");
    signal.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(onAbort, deadlineMs);
  });
  const finished = job.waitUntilFinished(events).then(
    () => "done" as const,
    () => "failed" as const,
  );
  try {
    return await Promise.race([finished, gone]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

/** Workers alive, each queue's depth and oldest wait (among its first 100), stalls and outcomes. */
async function readStats(redis: Redis, queues: Record<JobKind, Queue>): Promise<TierStats> {
  const now = Date.now();
  await redis.zremrangebyscore(WORKERS_KEY, "-inf", now);
  const [workersAlive, stalls, outcomes] = await Promise.all([
    redis.zcard(WORKERS_KEY),
    redis.get(STALLS_KEY),
    redis.hgetall(OUTCOMES_KEY),
  ]);
  const perQueue = await Promise.all(
    Object.values(queues).map(async (queue) => {
      const counts = await queue.getJobCounts("wait", "prioritized", "delayed", "active");
      const waiting = await queue.getJobs(["wait", "prioritized", "delayed"], 0, 99, true);
      const oldest = Math.min(now, ...waiting.map((j) => j.timestamp));
      return {
        name: queue.name,
        depth: (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
        running: counts.active ?? 0,
        oldestAgeSeconds: Math.max(0, (now - oldest) / 1000),
      };
    }),
  );
  return {
    workersAlive,
    queues: perQueue,
    stalls: Number(stalls ?? 0),
    outcomes: Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [k, Number(v)])),
  };
}
