// The work tier's Redis connections (ioredis, as BullMQ uses it) and the start-up check of Redis's eviction policy.
import { Redis } from "ioredis";

/** How long a web instance's command to the queues may take before the request answers 503 busy. */
const PRODUCER_COMMAND_TIMEOUT_MS = 5_000;

/**
 * A producer's connection (web instances): a command waits at most PRODUCER_COMMAND_TIMEOUT_MS and is retried once,
 * so a request answers 503 while Redis is away instead of waiting. A worker's (`blocking`) waits and reconnects, as
 * BullMQ's blocking reads need.
 */
export function tierConnection(url: string, role: "producer" | "blocking"): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === "blocking" ? null : 1,
    ...(role === "producer" && { commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS }),
    connectTimeout: 5_000,
  });
}

/**
 * Redis must keep every key (maxmemory-policy noeviction): an evicting Redis drops queued jobs and their locks
 * silently. Resolves with the policy, or throws an Error saying what is wrong.
 */
export async function checkEvictionPolicy(redis: Redis): Promise<string> {
  const info = await redis.info("memory");
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (!policy) throw new Error("Redis did not report its maxmemory-policy (INFO memory)");
  if (policy !== "noeviction") {
    throw new Error(
      `Redis runs with maxmemory-policy ${policy}; the work tier needs noeviction (set "maxmemory-policy noeviction" in redis.conf or with CONFIG SET), or queued jobs may be evicted and lost`,
    );
  }
  return policy;
}

/** The start-up check of web instances and workers: throws an Error saying what is wrong, or resolves. */
export async function checkTierRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: true });
  redis.on("error", () => undefined);
  try {
    await redis.connect().catch((err: Error) => {
      throw new Error(`cannot reach Redis at REDIS_URL: ${err.message}`);
    });
    await checkEvictionPolicy(redis);
  } finally {
    redis.disconnect();
  }
}
