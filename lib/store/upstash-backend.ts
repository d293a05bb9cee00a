// The Redis backend: every repository on one client, so quotas, keys, the waitlist, jobs and images are shared by
// every instance. openUpstashBackend builds the client for Upstash's REST API; openRedisBackend takes any client
// that offers RedisClient's commands.
import { announcingJobStore, type JobChangeFeed } from "@/lib/jobs/changes";
import { noUsageHistory } from "@/lib/usage/history";
import type { Backend, BackendOptions } from "./backend";
import { openUpstashImageStore } from "./images-upstash";
import { openUpstashIdempotency, openUpstashJobStore } from "./jobs-upstash";
import { createRedisClient, type RedisClient, type RedisOptions } from "./redis-client";
import { TcpRedis } from "./redis-tcp";
import { openUpstashQuota } from "./upstash";
import { openUpstashKeys } from "./upstash-keys";
import { openUpstashSessions } from "./upstash-sessions";
import { openUpstashSlidingWindow } from "./upstash-sliding";
import { openUpstashAuditLog, openUpstashWaitlist } from "./upstash-waitlist";
import { openUpstashUsageHistory } from "./usage-history-upstash";
import { openUpstashWebhookOutbox } from "./webhooks-upstash";

export type RedisBackend = Backend & {
  readonly kind: "upstash" | "redis";
  client: RedisClient;
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

export function openRedisBackend(client: RedisClient, opts: BackendOptions): RedisBackend {
  const usage =
    opts.usageHistoryDays === 0 ? noUsageHistory : openUpstashUsageHistory(client, { keepDays: opts.usageHistoryDays });
  const images = openUpstashImageStore(client);
  const webhooks = openUpstashWebhookOutbox(client);
  const jobChanges = client instanceof TcpRedis ? jobChangeFeed(client) : undefined;
  const jobs = openUpstashJobStore(client);
  return {
    kind: client instanceof TcpRedis ? "redis" : "upstash",
    client,
    quota: openUpstashQuota(client),
    keys: openUpstashKeys(client),
    waitlist: openUpstashWaitlist(client),
    audit: openUpstashAuditLog(client),
    sessions: openUpstashSessions(client),
    attempts: openUpstashSlidingWindow(client),
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
  return openRedisBackend(createRedisClient(opts), { usageHistoryDays: opts.usageHistoryDays ?? 90 });
}
