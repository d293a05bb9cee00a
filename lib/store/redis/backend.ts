// The Redis backend: every repository on one client, so quotas, keys, the waitlist, jobs and images are shared by
// every instance. openUpstashBackend builds the client for Upstash's REST API; openRedisBackend takes any client
// that offers RedisClient's commands.
import { announcingJobStore, type JobChangeFeed } from "@/lib/jobs/changes";
import type { Backend, BackendOptions } from "@/lib/store/backend";
import { noUsageHistory } from "@/lib/usage/history";
import { openUpstashAuditLog } from "./audit";
import { createRedisClient, DEFAULT_TIMEOUT_MS, type RedisClient, type RedisOptions } from "./client";
import { openUpstashIdempotency } from "./idempotency";
import { openUpstashImageStore } from "./images";
import { openUpstashJobStore } from "./jobs";
import { openUpstashKeys } from "./keys";
import { openUpstashWebhookOutbox } from "./outbox";
import { openUpstashQuota } from "./quota";
import { openUpstashSessions } from "./sessions";
import { openUpstashSlidingWindow } from "./sliding-window";
import { TcpRedis } from "./tcp";
import { openUpstashUsageHistory } from "./usage";
import { openUpstashWaitlist } from "./waitlist";

export type RedisBackend = Backend & {
  readonly kind: "upstash" | "redis";
  client: RedisClient;
  /** How long one call may take before the store counts as unavailable. */
  readonly timeoutMs: number;
  /** Job changes pushed between instances: over REDIS_URL only (REST has no subscriptions, and each publish costs). */
  jobChanges?: JobChangeFeed;
};

const JOB_CHANNEL = "darkroom:jobs:changed";

function jobChangeFeed(client: TcpRedis): JobChangeFeed {
  return {
    publish: async (id) => {
      await client.publish(JOB_CHANNEL, id);
    },
    subscribe: (onChange, onLive) => client.subscribe(JOB_CHANNEL, onChange, onLive),
  };
}

export function openRedisBackend(client: RedisClient, opts: BackendOptions & { timeoutMs?: number }): RedisBackend {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const usage =
    opts.usageHistoryDays === 0 ? noUsageHistory : openUpstashUsageHistory(client, { keepDays: opts.usageHistoryDays });
  const images = openUpstashImageStore(client);
  const webhooks = openUpstashWebhookOutbox(client);
  const jobChanges = client instanceof TcpRedis ? jobChangeFeed(client) : undefined;
  const jobs = openUpstashJobStore(client);
  return {
    kind: client instanceof TcpRedis ? "redis" : "upstash",
    client,
    timeoutMs,
    quota: openUpstashQuota(client),
    keys: openUpstashKeys(client),
    waitlist: openUpstashWaitlist(client),
    audit: openUpstashAuditLog(client),
    sessions: openUpstashSessions(client),
    attempts: openUpstashSlidingWindow(client, { timeoutMs }),
    images,
    jobs: jobChanges ? announcingJobStore(jobs, jobChanges) : jobs,
    jobChanges,
    idempotency: openUpstashIdempotency(client),
    webhooks,
    usage,
    async ping() {
      try {
        return (await client.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    async close() {
      // An HTTP client holds no connection of its own; the repositories stop their background work.
      await Promise.all([usage.close(), images.close(), webhooks.close()]);
    },
  };
}

export function openUpstashBackend(opts: RedisOptions & Partial<BackendOptions>): RedisBackend {
  return openRedisBackend(createRedisClient(opts), {
    usageHistoryDays: opts.usageHistoryDays ?? 90,
    timeoutMs: opts.timeoutMs,
  });
}
