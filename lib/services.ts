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
import type { ImageStore } from "@/lib/store/images";
import { openSqliteImageStore } from "@/lib/store/images-sqlite";
import { openUpstashImageStore } from "@/lib/store/images-upstash";
import { openSqliteStore } from "@/lib/store/sqlite";
import type { Store } from "@/lib/store/types";
import { openUpstashStore } from "@/lib/store/upstash";
import { createUpstashGuard } from "@/lib/store/upstash-guard";
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
};

/** Upstash when configured (never silently falling back to SQLite), else the embedded SQLite file. */
export function openStore(config: Config): Store {
  if (config.upstash) return openUpstashStore(config.upstash);
  return openSqliteStore(config.dataDir);
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

function createServices(): Services {
  const config = getConfig();
  const store = openStore(config);
  return {
    config,
    store,
    statusGuard: config.upstash ? createUpstashGuard(config.upstash) : createMemoryWindow(),
    storage: openStorage(config),
    images: openImageStore(config),
    proxies: parseTrustedProxies(config.trustedProxies),
    pepper: loadPepper(config.dataDir, config.keyPepper),
    buckets: bucketsOf(config.limits),
    queues: {
      generate: new WorkQueue("generate", config.work.generateConcurrency, config.work.generateQueue),
      enhance: new WorkQueue("enhance", config.work.enhanceConcurrency, config.work.enhanceQueue),
    },
    uploads: new ByteBudget(config.upload.maxInflightBytes),
  };
}

export function getServices(): Services {
  return processSingleton("services", createServices);
}
