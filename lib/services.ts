// Process-wide singletons (config, store, storage, queues), created once even if Next bundles this module twice.

import { type ProxyList, parseTrustedProxies } from "@/lib/api/client-ip";
import { ERROR_CODES, type ErrorCode } from "@/lib/api/error-codes";
import { toApiError } from "@/lib/api/errors";
import { outcomeOf, recordRequest } from "@/lib/api/usage-recording";
import { loadPepper } from "@/lib/auth/pepper";
import { type Config, getConfig } from "@/lib/config";
import { signingSecretOf } from "@/lib/console/keys";
import { JobRunner } from "@/lib/jobs/runner";
import type { HeldUnit, JobRecord } from "@/lib/jobs/types";
import { ALL_STATUSES } from "@/lib/jobs/types";
import { announceJob } from "@/lib/jobs/webhook";
import { createMemoryWindow, type WindowCounter } from "@/lib/quota/memory-window";
import { type Buckets, bucketsOf } from "@/lib/quota/policies";
import { processSingleton } from "@/lib/singleton";
import { createLocalStorage } from "@/lib/storage/local";
import type { ImageStorage } from "@/lib/storage/types";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import type { ConsoleStore } from "@/lib/store/console";
import { openSqliteConsoleStore } from "@/lib/store/console-sqlite";
import { openUpstashConsoleStore } from "@/lib/store/console-upstash";
import type { ImageStore } from "@/lib/store/images";
import { openSqliteImageStore } from "@/lib/store/images-sqlite";
import { openUpstashImageStore } from "@/lib/store/images-upstash";
import type { JobStore } from "@/lib/store/jobs";
import { openSqliteJobStore } from "@/lib/store/jobs-sqlite";
import { openUpstashJobStore } from "@/lib/store/jobs-upstash";
import { openSqliteStore } from "@/lib/store/sqlite";
import type { Store } from "@/lib/store/types";
import { openUpstashStore } from "@/lib/store/upstash";
import { createUpstashGuard } from "@/lib/store/upstash-guard";
import { noUsageHistory, type UsageHistory } from "@/lib/store/usage-history";
import { openSqliteUsageHistory } from "@/lib/store/usage-history-sqlite";
import { openUpstashUsageHistory } from "@/lib/store/usage-history-upstash";
import type { WebhookOutbox } from "@/lib/store/webhooks";
import { openSqliteWebhookOutbox } from "@/lib/store/webhooks-sqlite";
import { openUpstashWebhookOutbox } from "@/lib/store/webhooks-upstash";
import { startWebhookWorker } from "@/lib/webhooks";
import { ByteBudget } from "@/lib/work/byte-budget";
import { WorkQueue } from "@/lib/work/queue";

export type Services = {
  config: Config;
  store: Store;
  storage: ImageStorage;
  /** One record per stored image (lib/images). */
  images: ImageStore;
  proxies: ProxyList;
  pepper: string;
  buckets: Buckets;
  /** Where the per-minute status guard counts: Redis with Upstash, in process with the embedded store. */
  statusGuard: WindowCounter;
  queues: { generate: WorkQueue; enhance: WorkQueue };
  /** Bytes of uploads held in memory at once, across every request. */
  uploads: ByteBudget;
  jobs: JobStore;
  runner: JobRunner;
  /** Webhook deliveries waiting for an attempt, in the same backend as the store. */
  webhooks: WebhookOutbox;
  /** Waitlist decisions, the keys' 1.1 fields and the audit log, for the operators' console. */
  console: ConsoleStore;
  /** Daily usage aggregates. */
  usage: UsageHistory;
};

/** Upstash when configured (never silently falling back to SQLite), else the embedded SQLite file. */
export function openStore(config: Config): Store {
  if (config.upstash) return openUpstashStore(config.upstash);
  return openSqliteStore(config.dataDir);
}

/** The console's data, on the same backend as the store. */
export function openConsoleStore(config: Config): ConsoleStore {
  if (config.upstash) return openUpstashConsoleStore(config.upstash);
  return openSqliteConsoleStore(config.dataDir);
}

/** The usage history on the same backend as the store; nothing at all when USAGE_HISTORY_DAYS is 0. */
export function openUsageHistory(config: Config): UsageHistory {
  const keepDays = config.usageHistoryDays;
  if (keepDays === 0) return noUsageHistory;
  if (config.upstash) return openUpstashUsageHistory({ ...config.upstash, keepDays });
  return openSqliteUsageHistory(config.dataDir, { keepDays });
}

/** Image records live in the same backend as the store. */
export function openImageStore(config: Config): ImageStore {
  if (config.upstash) return openUpstashImageStore(config.upstash);
  return openSqliteImageStore(config.dataDir);
}

/** Vercel Blob when a token is set, else files under DATA_DIR served at /cdn. */
export function openStorage(config: Config): ImageStorage {
  if (config.blobToken) return createVercelBlobStorage({ token: config.blobToken });
  return createLocalStorage(config.dataDir, config.publicCdnUrl);
}

/** Async jobs' records next to the quotas: in Redis with Upstash, else in the SQLite file. */
export function openJobStore(config: Config): JobStore {
  if (config.upstash) return openUpstashJobStore(config.upstash);
  return openSqliteJobStore(config.dataDir);
}

function createServices(): Services {
  const config = getConfig();
  const store = openStore(config);
  const jobs = openJobStore(config);
  const webhooks = config.upstash ? openUpstashWebhookOutbox(config.upstash) : openSqliteWebhookOutbox(config.dataDir);
  const pepper = loadPepper(config.dataDir, config.keyPepper);
  const consoleStore = openConsoleStore(config);
  const usage = openUsageHistory(config);
  return {
    config,
    store,
    statusGuard: config.upstash ? createUpstashGuard(config.upstash) : createMemoryWindow(),
    storage: openStorage(config),
    images: openImageStore(config),
    proxies: parseTrustedProxies(config.trustedProxies),
    pepper,
    buckets: bucketsOf(config.limits),
    queues: {
      generate: new WorkQueue("generate", config.work.generateConcurrency, config.work.generateQueue),
      enhance: new WorkQueue("enhance", config.work.enhanceConcurrency, config.work.enhanceQueue),
    },
    uploads: new ByteBudget(config.upload.maxInflightBytes),
    jobs,
    runner: createJobRunner(config, { store, jobs, webhooks, console: consoleStore, usage, pepper }),
    webhooks,
    console: consoleStore,
    usage,
  };
}

export function getServices(): Services {
  return processSingleton("services", createServices);
}

function createJobRunner(
  config: Config,
  {
    store,
    jobs,
    webhooks,
    console: consoleStore,
    usage,
    pepper,
  }: Pick<Services, "store" | "jobs" | "webhooks" | "console" | "usage" | "pepper">,
): JobRunner {
  const refund = (units: HeldUnit[]) =>
    Promise.all(units.map((u) => store.refund(u.bucket, u.identity, u.windowStart))).then(() => undefined);
  const runner = new JobRunner({
    jobs,
    refund,
    describeFailure: (err, jobId) => {
      const { code, message } = toApiError(err, jobId);
      return { code, message };
    },
    onFinished: (job) => {
      void announceJob(webhooks, job, (keyId) => signingSecretOf({ console: consoleStore, pepper }, keyId));
      void recordJob({ usage }, job);
    },
    leaseMs: config.jobs.leaseMs,
  });
  // Every live instance sweeps, so the jobs of one that died are failed and refunded by another.
  runner.watch();
  startWebhookWorker({
    store: webhooks,
    allowHosts: config.webhookAllowHosts,
    onAttempt: async (jobId, webhook) => {
      await jobs.transition(jobId, ALL_STATUSES, { webhook });
    },
  });
  return runner;
}

/**
 * An async job's line in the usage history, when it ends (its 202 was not counted): succeeded, failed by the
 * status of its error, or refused when the caller cancelled it.
 */
function recordJob(svc: Pick<Services, "usage">, job: JobRecord): Promise<void> {
  const { plan = "free", keyId, model } = job.internal;
  const status =
    job.status === "succeeded"
      ? 200
      : job.status === "canceled"
        ? 499
        : (ERROR_CODES[job.error?.code as ErrorCode]?.status ?? 500);
  const engine = typeof job.result?.engine === "string" ? job.result.engine : undefined;
  const made = Array.isArray(job.result?.images) ? job.result.images.length : undefined;
  return recordRequest(svc, {
    endpoint: job.kind,
    caller: { plan, keyId },
    note: { model, engine, made },
    outcome: outcomeOf(status),
    at: Date.parse(job.finished_at ?? "") || Date.now(),
  });
}
