// Job records in Redis, shared by every instance. A job is a hash of its JSON and a version; a
// change is read, computed, and written by a script only if the version is still the one read (compare-and-set),
// so two instances never both move one job. Every write is safe to retry. A job's end adds its webhook delivery to
// the outbox in the same script.
import { StoreUnavailable } from "@/lib/errors";
import { applyPatch, type JobStore } from "@/lib/jobs/store";
import { FINISHED_JOB_TTL_MS, isFinished, type JobRecord } from "@/lib/jobs/types";
import type { NewDelivery } from "@/lib/webhooks/outbox";
import type { RedisClient } from "./client";
import { ADD_DELIVERY_LUA, CHECK_DELIVERY_KEYS_LUA, deliveryArgs, outboxKeys, QUEUE_LUA } from "./delivery";

const jobKey = (id: string) => `darkroom:job:${id}`;
const ACTIVE = "darkroom:jobs:active"; // sorted set: job id by lease end
/** Unfinished jobs are kept at most this long, whatever happens to their instance. */
const ACTIVE_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const CAS_ATTEMPTS = 8;

/**
 * The optimistic check both job writes start with: KEYS[1] is the job, ARGV[1] the version expected, ARGV[2] the
 * data. A retry of a write that already landed finds its own data one version on, and succeeds without writing.
 */
const VERSION_GATE_LUA = `
local v = tonumber(redis.call("HGET", KEYS[1], "v") or "0")
local expected = tonumber(ARGV[1])
if v ~= expected then
  if v == expected + 1 and redis.call("HGET", KEYS[1], "data") == ARGV[2] then return 1 end
  return 0
end
`;

/**
 * KEYS: job, active set. ARGV: expected version ("0" for a new job), data, ttl ms, lease end or "" when finished,
 * id. A retry of a write that already landed finds its own data one version on, and succeeds again.
 */
const WRITE_JOB = `
${VERSION_GATE_LUA}redis.call("HSET", KEYS[1], "v", tostring(v + 1), "data", ARGV[2])
redis.call("PEXPIRE", KEYS[1], ARGV[3])
if ARGV[4] == "" then redis.call("ZREM", KEYS[2], ARGV[5]) else redis.call("ZADD", KEYS[2], ARGV[4], ARGV[5]) end
return 1
`;

/**
 * WRITE_JOB and, in the same script, the webhook delivery the write makes (a job's end). KEYS: job, active set,
 * delivery hash, due set, meta hash, queue, queued keys. ARGV: as WRITE_JOB, then deliveryArgs. Redis does not undo a script that
 * fails halfway, so every key is checked before anything is written: the end and the delivery land together or not
 * at all. A retry of a write that landed finds its data one version on, delivery included, and writes nothing.
 */
const WRITE_JOB_WITH_DELIVERY = `
${VERSION_GATE_LUA}local dkey, due, meta, queue, keyset = KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id, at, metaValue = ARGV[6], ARGV[7], ARGV[8]
local fields = {unpack(ARGV, 9)}
${CHECK_DELIVERY_KEYS_LUA}${QUEUE_LUA}
redis.call("HSET", KEYS[1], "v", tostring(v + 1), "data", ARGV[2])
redis.call("PEXPIRE", KEYS[1], ARGV[3])
if ARGV[4] == "" then redis.call("ZREM", KEYS[2], ARGV[5]) else redis.call("ZADD", KEYS[2], ARGV[4], ARGV[5]) end
${ADD_DELIVERY_LUA}
return 1
`;

const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    throw new StoreUnavailable(`upstash: jobs ${what} failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
};

/** KEYS: the jobs. Each job's [v, data] in one round trip (a script, so any transport that runs scripts can). */
const READ_JOBS = `
local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call("HMGET", key, "v", "data") end
return out
`;

export function openUpstashJobStore(redis: RedisClient): JobStore {
  const writeJob = redis.createScript<number>(WRITE_JOB);
  const writeJobWithDelivery = redis.createScript<number>(WRITE_JOB_WITH_DELIVERY);
  const outbox = outboxKeys();
  const readJobs = redis.createScript<unknown[]>(READ_JOBS);

  /** With deserialization off the client hands back Redis's own HMGET reply: [v, data], nulls when absent. */
  const parseReply = (reply: unknown): { job: JobRecord; version: string } | null => {
    const [v, data] = Array.isArray(reply) ? reply : [null, null];
    if (typeof v !== "string" || typeof data !== "string") return null;
    return { job: JSON.parse(data) as JobRecord, version: v };
  };
  const read = async (id: string) => parseReply(await call("read", () => redis.hmget(jobKey(id), "v", "data")));

  const write = (job: JobRecord, version: string, delivery?: NewDelivery) => {
    const finished = isFinished(job.status);
    const args = [
      version,
      JSON.stringify(job),
      String(finished ? FINISHED_JOB_TTL_MS : ACTIVE_JOB_TTL_MS),
      finished ? "" : String(job.internal.leaseUntil),
      job.id,
    ];
    if (!delivery) return call("write", () => writeJob.exec([jobKey(job.id), ACTIVE], args));
    const keys = [
      jobKey(job.id),
      ACTIVE,
      outbox.delivery(delivery.id),
      outbox.due,
      outbox.meta,
      outbox.queue,
      outbox.keys,
    ];
    return call("write", () => writeJobWithDelivery.exec(keys, [...args, ...deliveryArgs(delivery)]));
  };

  return {
    async create(job) {
      if ((await write(job, "0")) !== 1) throw new Error(`job ${job.id} already exists`);
    },
    async get(id) {
      return (await read(id))?.job ?? null;
    },
    async getMany(ids) {
      const found = new Map<string, JobRecord>();
      if (ids.length === 0) return found;
      // One script call: one request to Redis for every job, whatever their number.
      const replies = await call("getMany", () => readJobs.exec(ids.map(jobKey), []));
      for (const reply of Array.isArray(replies) ? replies : []) {
        const job = parseReply(reply)?.job;
        if (job) found.set(job.id, job);
      }
      return found;
    },
    async transition(id, from, patch, deliveryOf) {
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const current = await read(id);
        if (!current || !from.includes(current.job.status)) return null;
        const next = applyPatch(current.job, patch);
        if ((await write(next, current.version, deliveryOf?.(next))) === 1) return next;
      }
      throw new StoreUnavailable(`upstash: job ${id} kept changing under us`);
    },
    async listExpired(now, limit) {
      const ids = await call("listExpired", () =>
        redis.zrange<string[]>(ACTIVE, "-inf", now, { byScore: true, offset: 0, count: limit }),
      );
      const jobs = await Promise.all(ids.map((id) => read(id)));
      return jobs.flatMap((r) => (r && !isFinished(r.job.status) ? [r.job] : []));
    },
    async prune() {
      // Finished jobs and answers expire by themselves (PEXPIRE); ids of jobs that vanished leave the active set.
      const ids = await call("prune", () => redis.zrange<string[]>(ACTIVE, 0, 99));
      let removed = 0;
      for (const id of ids) {
        if (!(await call("prune", () => redis.exists(jobKey(id))))) {
          removed += await call("prune", () => redis.zrem(ACTIVE, id));
        }
      }
      return removed;
    },
  };
}
