// The BullMQ tier as a worker process runs it (`npm run worker`): one BullMQ Worker per queue takes jobs, rebuilds
// each one's work from its description, and runs it under the job runner, which keeps the record true (progress,
// cancels made on any web instance, the end with its webhook, units given back on failure). Every effect is keyed by
// the job: the units were taken once at acceptance, and only the one transition that ends the record refunds, writes
// the webhook and records usage, so a job run again after its worker died is still charged and delivered once.
import crypto from "node:crypto";
import { DelayedError, type Job, Queue, RateLimitError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { SharedSlots } from "@/lib/engines/local/slots";
import { ChainExhausted } from "@/lib/errors";
import type { JobRunner, JobWork } from "@/lib/jobs/runner";
import type { JobStore } from "@/lib/jobs/store";
import { isFinished, type JobKind, type JobRecord } from "@/lib/jobs/types";
import { describeError, log } from "@/lib/log";
import type { TempArea } from "@/lib/storage/types";
import { LOST_MESSAGE } from "./bullmq";
import { HEARTBEAT_EVERY_MS, HEARTBEAT_TTL_MS, OUTCOMES_KEY, QUEUE_OF_KIND, STALLS_KEY, WORKERS_KEY } from "./names";
import { dropJobData, type PackedData, unpackJobData } from "./payload";
import { tierConnection } from "./redis";
import { createRedisSlots } from "./slots";
import type { JobSpec } from "./types";

export type ConsumerOptions = {
  redisUrl: string;
  /** Jobs run at once by this process, per queue. */
  concurrency: number;
  /** Jobs of one owner (a key, or a Free caller's address) running at once across every worker. */
  keyCap: number;
  /** Times a job whose worker died is run again before it fails. */
  stallLimit: number;
  /** How often workers look for jobs whose worker died; a job's lock lasts twice this. */
  stallCheckMs: number;
  jobs: Pick<JobStore, "get" | "transition">;
  runner: Pick<JobRunner, "execute" | "failLost">;
  temp: TempArea;
  /** The flows' work for a job's description. */
  workOf: (spec: JobSpec) => JobWork;
};

export type Consumer = {
  readonly id: string;
  /** Jobs running here now. */
  running(): number;
  /** Stops taking jobs and waits up to `graceMs` for the running ones; what still runs then is handed back. */
  drain(graceMs: number): Promise<{ handedBack: number }>;
};

/** The answer a job's BullMQ entry keeps: how it ended (the record in the store holds the rest). */
type Outcome = { status: JobRecord["status"] | "gone" };

export function startConsumer(opts: ConsumerOptions): Consumer {
  const id = `worker_${crypto.randomBytes(8).toString("hex")}`;
  const redis = tierConnection(opts.redisUrl, "blocking");
  redis.on("error", (err) => log.warn("work tier: Redis error", describeError(err)));
  let active = 0;

  // One Queue handle per kind, for the manual rate limit that a provider's 429 sets on the whole queue.
  const queues = new Map(
    (Object.keys(QUEUE_OF_KIND) as JobKind[]).map((kind) => [
      QUEUE_OF_KIND[kind],
      new Queue(QUEUE_OF_KIND[kind], { connection: redis }),
    ]),
  );
  const owners = createRedisSlots(() => redis, opts.keyCap);
  const process = async (job: Job<PackedData>, token?: string): Promise<Outcome> => {
    active++;
    try {
      return await runOne(opts, job, redis, {
        limit: (seconds) => limitQueue(queues.get(job.queueName), seconds),
        takeOwnerSlot: (owner) => takeOwnerSlot(owners, owner, job, token),
      });
    } catch (err) {
      if (!(err instanceof Requeued)) throw err;
      // Back to the queue, not counted as an attempt; every worker waits out the limit before taking the next job.
      throw new RateLimitError();
    } finally {
      active--;
    }
  };

  const workers = (Object.keys(QUEUE_OF_KIND) as JobKind[]).map((kind) => {
    const worker = new Worker<PackedData, Outcome>(QUEUE_OF_KIND[kind], process, {
      connection: tierConnection(opts.redisUrl, "blocking"),
      limiter: NEVER_BINDING_LIMITER,
      concurrency: opts.concurrency,
      maxStalledCount: opts.stallLimit,
      stalledInterval: opts.stallCheckMs,
      lockDuration: opts.stallCheckMs * 2,
      name: id,
    });
    worker.on("error", (err) => log.warn("work tier: worker error", { queue: kind, ...describeError(err) }));
    worker.on("stalled", (jobId) => {
      log.warn("work tier: a job's worker stopped; it runs again", { job_id: jobId });
      void redis.incr(STALLS_KEY).catch(() => undefined);
    });
    return worker;
  });

  const sweeper = endFailedJobs(opts, redis, workers, [...queues.values()]);

  const beat = () =>
    void redis
      .zadd(WORKERS_KEY, Date.now() + HEARTBEAT_TTL_MS, id)
      .catch((err) => log.warn("work tier: heartbeat failed", describeError(err)));
  beat();
  const heartbeat = setInterval(beat, HEARTBEAT_EVERY_MS);

  return {
    id,
    running: () => active,
    async drain(graceMs) {
      const handedBack = { n: 0 };
      const closing = Promise.all(workers.map((w) => w.close()));
      const inTime = await Promise.race([
        closing.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
      ]);
      if (!inTime) {
        // Still running past the grace: the jobs' locks are not renewed once the process goes, and the stalled-job
        // check hands each one to another worker (counted against its retry limit).
        handedBack.n = active;
        await Promise.all(workers.map((w) => w.close(true).catch(() => undefined)));
      }
      clearInterval(heartbeat);
      clearInterval(sweeper);
      await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
      await redis.zrem(WORKERS_KEY, id).catch(() => undefined);
      redis.disconnect();
      return { handedBack: handedBack.n };
    },
  };
}

/**
 * A job BullMQ failed for good (its workers died past the limit) ends failed, its units given back, its temporary
 * inputs removed: at once by the worker that failed it, and by a sweep of the failed sets, so a failure whose worker
 * died before it ended the record is still ended. The record's one transition makes it happen once. Returns the
 * sweep's timer.
 */
function endFailedJobs(opts: ConsumerOptions, redis: Redis, workers: Worker[], queues: Queue[]): NodeJS.Timeout {
  // Failed jobs whose records are known ended, so each sweep reads only the new ones.
  const settled = new Set<string>();
  const endLost = (jobId: string | undefined, reason: string) => {
    if (!jobId || settled.has(jobId)) return;
    void opts.runner
      .failLost(jobId, LOST_MESSAGE)
      .then((failed) => {
        if (settled.size >= FAILED_SWEPT * 10) settled.clear();
        settled.add(jobId);
        if (!failed) return;
        log.warn("work tier: job failed past the retry limit", { job_id: jobId, reason });
        return redis.hincrby(OUTCOMES_KEY, "failed", 1);
      })
      .catch((err) => log.warn("work tier: ending a lost job failed", { job_id: jobId, ...describeError(err) }));
  };
  for (const worker of workers) {
    // Only a job that BullMQ holds failed: one whose lock was lost before it could be failed runs again instead.
    worker.on("failed", (job, err) => {
      void job
        ?.getState()
        .then((state) => state === "failed" && endLost(job.id, err.message))
        .catch(() => undefined);
    });
  }
  const sweep = () =>
    void Promise.all(
      queues.map(async (queue) => {
        for (const job of await queue.getFailed(0, FAILED_SWEPT - 1)) endLost(job.id, job.failedReason);
      }),
    ).catch((err) => log.warn("work tier: sweeping failed jobs failed", describeError(err)));
  sweep();
  return setInterval(sweep, opts.stallCheckMs * 2);
}

/**
 * BullMQ honours a manual rate limit (Queue.rateLimit) only on a queue with a limiter: this one is so high that only
 * the manual limit ever holds.
 */
const NEVER_BINDING_LIMITER = { max: 1_000_000_000, duration: 1000 };

/** The newest failed jobs of each queue that a sweep looks at: BullMQ fails a few at a time, never thousands. */
const FAILED_SWEPT = 100;

/** How long a job whose owner runs its cap of jobs already waits before it is taken again. */
const OWNER_WAIT_MS = 500;

/**
 * One of the owner's slots for the job; past the owner's cap the job waits a moment in the delayed set (not counted
 * as an attempt) while the worker takes others' jobs.
 */
async function takeOwnerSlot(owners: SharedSlots, owner: string, job: Job, token?: string): Promise<() => void> {
  const free = await owners.tryTake(`owner ${owner}`);
  if (free) return free;
  await job.moveToDelayed(Date.now() + OWNER_WAIT_MS, token);
  throw new DelayedError();
}

/** How long the queue waits when every provider answered 429 without saying for how long. */
const CAPACITY_LIMIT_S = 30;

/** An async job whose providers were all at capacity: its record is queued again, and so must its BullMQ job be. */
class Requeued extends Error {}

/** Holds a whole queue (every worker of it) for `seconds`; a failure to set it only costs a sooner retry. */
async function limitQueue(queue: Queue | undefined, seconds: number): Promise<void> {
  log.warn("work tier: every provider is at capacity; the queue waits", { queue: queue?.name, seconds });
  await queue?.rateLimit(seconds * 1000).catch((err) => log.warn("work tier: rate limit not set", describeError(err)));
}

/**
 * Runs one job: a retry after its worker died starts again from the queue; an ended record is not run again. When
 * every provider answers 429, the queue waits out their Retry-After (`limit`): an async job goes back to the queue
 * (Requeued), a synchronous one fails busy at once, as it would inline.
 */
async function runOne(opts: ConsumerOptions, job: Job<PackedData>, redis: Redis, gates: RunGates): Promise<Outcome> {
  const jobId = job.id ?? "";
  const record = await opts.jobs.get(jobId);
  if (!record || isFinished(record.status)) {
    await dropJobData(job.data, opts.temp);
    return { status: record?.status ?? "gone" };
  }
  const freeOwnerSlot = await gates.takeOwnerSlot(record.owner);
  try {
    return await runHeld(opts, job, redis, record, gates.limit);
  } finally {
    freeOwnerSlot();
  }
}

/** What runs a job asks of the queue: its owner's slot (or a wait), and the manual rate limit after a 429. */
type RunGates = {
  takeOwnerSlot: (owner: string) => Promise<() => void>;
  limit: (seconds: number) => Promise<void>;
};

/** Runs a job whose owner's slot is held: back to queued if its last worker died mid-run, then its work. */
async function runHeld(
  opts: ConsumerOptions,
  job: Job<PackedData>,
  redis: Redis,
  found: JobRecord,
  limit: (seconds: number) => Promise<void>,
): Promise<Outcome> {
  const jobId = found.id;
  let record = found;
  if (record.status === "running") {
    // Its last worker died mid-run: the record goes back to queued, so this run starts it as the first did.
    record =
      (await opts.jobs.transition(jobId, ["running"], {
        status: "queued",
        progress: { fraction: null, queue_position: null, stage: "queued" },
      })) ?? record;
    if (isFinished(record.status)) return { status: record.status };
  }
  let ended: JobRecord | null;
  let spec: JobSpec | undefined;
  try {
    spec = await unpackJobData<JobSpec>(job.data, opts.temp);
  } catch (err) {
    // The description could not be read back (its input gone): the job cannot run anywhere.
    log.error("work tier: a job could not be started", { job_id: jobId, ...describeError(err) });
  }
  if (spec) {
    const sync = record.internal.sync === true;
    let atCapacityFor: number | undefined;
    const requeueOn = (err: unknown) => {
      if (!(err instanceof ChainExhausted && err.allAtCapacity)) return false;
      atCapacityFor = err.retryAfterS ?? CAPACITY_LIMIT_S;
      return !sync;
    };
    try {
      ended = await opts.runner.execute(record, opts.workOf(spec), requeueOn);
    } catch (err) {
      if (atCapacityFor === undefined) throw err;
      await limit(atCapacityFor);
      throw new Requeued();
    }
    if (atCapacityFor !== undefined) await limit(atCapacityFor);
  } else {
    ended = await opts.runner.failLost(jobId, "The job's input could not be read. Please submit it again.");
  }
  const final = ended ?? (await opts.jobs.get(jobId));
  await dropJobData(job.data, opts.temp);
  const status = final?.status ?? "gone";
  if (ended) await redis.hincrby(OUTCOMES_KEY, status, 1).catch(() => undefined);
  return { status };
}
