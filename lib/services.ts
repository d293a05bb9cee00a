// Process-wide singletons (config, store, storage, queues), created once even if Next bundles this module twice.

import { type ProxyList, parseTrustedProxies } from "@/lib/api/client-ip";
import { loadPepper } from "@/lib/auth/pepper";
import { type Config, getConfig } from "@/lib/config";
import { createMemoryWindow, type WindowCounter } from "@/lib/quota/memory-window";
import { type Buckets, bucketsOf } from "@/lib/quota/policies";
import { processSingleton } from "@/lib/singleton";
import { createLocalStorage } from "@/lib/storage/local";
import type { ImageStorage } from "@/lib/storage/types";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import type { ConsoleStore } from "@/lib/store/console";
import { openSqliteConsoleStore } from "@/lib/store/console-sqlite";
import { openUpstashConsoleStore } from "@/lib/store/console-upstash";
import { openSqliteStore } from "@/lib/store/sqlite";
import type { Store } from "@/lib/store/types";
import { openUpstashStore } from "@/lib/store/upstash";
import { createUpstashGuard } from "@/lib/store/upstash-guard";
import { noUsageHistory, type UsageHistory } from "@/lib/store/usage-history";
import { openSqliteUsageHistory } from "@/lib/store/usage-history-sqlite";
import { openUpstashUsageHistory } from "@/lib/store/usage-history-upstash";
import { ByteBudget } from "@/lib/work/byte-budget";
import { WorkQueue } from "@/lib/work/queue";

export type Services = {
  config: Config;
  store: Store;
  storage: ImageStorage;
  proxies: ProxyList;
  pepper: string;
  buckets: Buckets;
  /** Where the per-minute status guard counts: Redis with Upstash, in process with the embedded store. */
  statusGuard: WindowCounter;
  queues: { generate: WorkQueue; enhance: WorkQueue };
  /** Bytes of uploads held in memory at once, across every request. */
  uploads: ByteBudget;
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

/** Vercel Blob when a token is set, else files under DATA_DIR served at /cdn. */
export function openStorage(config: Config): ImageStorage {
  if (config.blobToken) return createVercelBlobStorage({ token: config.blobToken });
  return createLocalStorage(config.dataDir, config.publicCdnUrl);
}

function createServices(): Services {
  const config = getConfig();
  const store = openStore(config);
  return {
    config,
    store,
    statusGuard: config.upstash ? createUpstashGuard(config.upstash) : createMemoryWindow(),
    storage: openStorage(config),
    proxies: parseTrustedProxies(config.trustedProxies),
    pepper: loadPepper(config.dataDir, config.keyPepper),
    buckets: bucketsOf(config.limits),
    queues: {
      generate: new WorkQueue("generate", config.work.generateConcurrency, config.work.generateQueue),
      enhance: new WorkQueue("enhance", config.work.enhanceConcurrency, config.work.enhanceQueue),
    },
    uploads: new ByteBudget(config.upload.maxInflightBytes),
    console: openConsoleStore(config),
    usage: openUsageHistory(config),
  };
}

export function getServices(): Services {
  return processSingleton("services", createServices);
}
