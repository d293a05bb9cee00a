// The composition root: everything process-wide (config, the store backend and its repositories, storage, engines,
// the enhancer, queues, the mailer, the job runner), built in one place; no domain logic. Routes get it through getServices(), which builds it once per process even
// if Next bundles this module twice; server.ts, the CLIs and tests call createServices() themselves.

import { loadPepper } from "@/lib/auth/pepper";
import { type Config, getConfig } from "@/lib/config";
import { createMailer, type Mailer } from "@/lib/console/invitation";
import { signingSecretOf } from "@/lib/console/keys";
import { createEngineShared, createEngines, type Engines } from "@/lib/engines";
import { createGpuPools, type GpuPools } from "@/lib/engines/local/pool";
import { createProcessSlots, type SharedSlots } from "@/lib/engines/local/slots";
import { createEnhancer, type Enhancer } from "@/lib/enhance/engine-registry";
import { createEnhanceRoutes, type EnhanceRoutes } from "@/lib/enhance/routes/remote-chain";
import { reclaimLapsedClaims } from "@/lib/idempotency/idempotency";
import { createSweepStats, type SweepStats } from "@/lib/images/sweep";
import { JobRunner } from "@/lib/jobs/runner";
import { ALL_STATUSES } from "@/lib/jobs/types";
import { createJobWatcher, type JobWatcher } from "@/lib/jobs/watch";
import { webhookFor } from "@/lib/jobs/webhook";
import { describeError, log } from "@/lib/log";
import { type ProxyList, parseTrustedProxies } from "@/lib/net/client-ip";
import { Drain } from "@/lib/ops/drain";
import { refundUnits } from "@/lib/quota/ledger";
import { createMemoryWindow, type WindowCounter } from "@/lib/quota/memory-window";
import { type Buckets, bucketsOf } from "@/lib/quota/policies";
import type { HeldUnit } from "@/lib/quota/types";
import { toApiError } from "@/lib/schemas/api-error";
import { processSingleton } from "@/lib/singleton";
import { createDiskChecker, type DiskChecker } from "@/lib/status/disk";
import { createStorageHealth, type StorageHealth } from "@/lib/storage/health";
import { createLocalStorage } from "@/lib/storage/local";
import { createS3Storage } from "@/lib/storage/s3";
import type { ImageStorage } from "@/lib/storage/types";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import type { Backend } from "@/lib/store/backend";
import { openUpstashBackend, type RedisBackend } from "@/lib/store/redis/backend";
import { createUpstashGuard } from "@/lib/store/redis/call-guard";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { createBullmqTier } from "@/lib/tier/bullmq";
import { createInlineTier } from "@/lib/tier/inline";
import { tierConnection } from "@/lib/tier/redis";
import { createRedisSlots } from "@/lib/tier/slots";
import type { WorkTier } from "@/lib/tier/types";
import { recordJob } from "@/lib/usage/recording";
import { createWebhookWorker, type WebhookWorker } from "@/lib/webhooks";
import { PixelBudget } from "@/lib/work/pixel-budget";
import { WorkQueue } from "@/lib/work/queue";
import { StreamSlots } from "@/lib/work/stream-slots";
import { UploadGate } from "@/lib/work/upload-gate";

type Repositories = Omit<Backend, "kind" | "ping" | "close">;

/** Follows job changes pushed by the backend, where it can push (Redis over REDIS_URL); a no-op otherwise. */
function followJobChanges(backend: Backend, watcher: JobWatcher): void {
  const feed = backend.kind === "redis" ? (backend as RedisBackend).jobChanges : undefined;
  feed?.subscribe(
    (id) => watcher.changed(id),
    (live) => watcher.setPushed(live),
  );
}

export type Services = Repositories & {
  config: Config;
  /** The store backend the repositories below belong to (SQLite or Redis). */
  backend: Backend;
  storage: ImageStorage;
  /** Every model's engine, built on first use. */
  engines: Engines;
  /** The GPU server pools, shared by generation's and enhancement's routes. */
  gpuPools: GpuPools;
  /** The enhance engine registry; its worker pool starts on first use. */
  enhancer: Enhancer;
  /** The enhance modes' chains of routes, built once, so a route's health outlives a request. */
  enhanceRoutes: EnhanceRoutes;
  /** The invitation mailer; null when SMTP_URL and MAIL_FROM are not set. */
  mailer: Mailer | null;
  /** This process's image retention sweeps, for the console. */
  sweepStats: SweepStats;
  /** Free space on DATA_DIR, cached briefly, for /api/status. */
  checkDisk: DiskChecker;
  /** Whether the image storage answers, cached briefly, for /api/status. */
  checkStorage: StorageHealth;
  proxies: ProxyList;
  pepper: string;
  buckets: Buckets;
  /** Where the per-minute status guard counts: Redis with Upstash, in process with the embedded store. */
  statusGuard: WindowCounter;
  /** Bounded queues: generations, enhancements, and the decoding of edit inputs (image and mask). */
  queues: { generate: WorkQueue; enhance: WorkQueue; decode: WorkQueue };
  /**
   * The image data this process holds at once (PIXEL_BUDGET_MB): upload bytes as they arrive, and each decode's
   * pixels; shared by the upload gate, enhancements and edit decodes, in whichever process decodes.
   */
  pixels: PixelBudget;
  /** Uploads held in memory at once: bytes as they arrive, each identity's share, and the body deadlines. */
  uploads: UploadGate;
  /** Open event streams per caller identity and per job, on this instance. */
  streams: StreamSlots;
  /** One reader of the job store for every open event stream on this instance. */
  jobWatch: JobWatcher;
  runner: JobRunner;
  /** Where async and synchronous jobs run: in this process (inline), or on workers fed by BullMQ (WORK_TIER). */
  tier: WorkTier;
  /** Delivers the webhook outbox; started by startBackground, poked when a job with a webhook ends. */
  webhookWorker: WebhookWorker;
  /** This process's work in flight, and the signal that stops it at shutdown (server.ts drains it). */
  drain: Drain;
};

/** Upstash when configured (never silently falling back to SQLite), else the embedded SQLite file. */
export function openBackend(config: Config): Backend {
  const usageHistoryDays = config.usageHistoryDays;
  if (config.upstash) return openUpstashBackend({ ...config.upstash, usageHistoryDays });
  return openSqliteBackend(config.dataDir, { usageHistoryDays });
}

/** An S3-compatible bucket when S3_BUCKET is set, Vercel Blob when a token is set, else files under DATA_DIR. */
export function openStorage(config: Config): ImageStorage {
  if (config.s3) return createS3Storage(config.s3);
  if (config.blobToken) return createVercelBlobStorage({ token: config.blobToken });
  return createLocalStorage(config.dataDir, config.publicCdnUrl);
}

/** The work tier WORK_TIER names: in process, or BullMQ queues on REDIS_URL with inputs in the storage's temp area. */
export function openTier(
  config: Config,
  deps: { jobs: Services["jobs"]; runner: JobRunner; storage: ImageStorage },
): WorkTier {
  if (config.tier.kind === "inline") return createInlineTier(deps.runner, deps.jobs);
  return createBullmqTier({
    redisUrl: config.tier.redisUrl,
    jobs: deps.jobs,
    runner: deps.runner,
    temp: deps.storage.temp,
  });
}

/** Each GPU server's cap (GPU_SERVER_CONCURRENCY): counted in Redis on the work tier, so it holds across workers. */
function gpuSlotsOf(config: Config): SharedSlots | undefined {
  const cap = config.work.gpuServerConcurrency;
  if (cap === undefined) return undefined;
  if (config.tier.kind === "inline") return createProcessSlots(cap);
  const { redisUrl } = config.tier;
  return createRedisSlots(() => {
    const redis = tierConnection(redisUrl, "producer");
    redis.on("error", (err) => log.warn("work tier: Redis error (GPU server slots)", describeError(err)));
    return redis;
  }, cap);
}

/**
 * Builds the whole graph for `config`; `overrides` replace parts (a test's backend or storage). Nothing runs in the
 * background until startBackground().
 */
export function createServices(
  config: Config,
  overrides: Partial<Pick<Services, "backend" | "storage" | "engines" | "enhancer">> = {},
): Services {
  const backend = overrides.backend ?? openBackend(config);
  const { kind: _kind, ping: _ping, close: _close, ...repositories } = backend as Backend;
  const pepper = loadPepper(config.dataDir, config.keyPepper);
  const drain = new Drain();
  const webhookWorker = createWebhookWorker({
    store: repositories.webhooks,
    allowHosts: config.webhookAllowHosts,
    onAttempt: async (jobId, webhook) => {
      await repositories.jobs.transition(jobId, ALL_STATUSES, { webhook });
    },
  });
  const storage = overrides.storage ?? openStorage(config);
  const runner = createJobRunner(config, { ...repositories, pepper }, webhookWorker, drain);
  const gpuPools = createGpuPools(gpuSlotsOf(config));
  // One route health book for generation's and enhancement's routes, as one set of GPU pools.
  const engineShared = createEngineShared(gpuPools);
  const pixels = new PixelBudget(config.work.pixelBudget);
  return {
    ...repositories,
    config,
    backend,
    statusGuard:
      backend.kind === "sqlite"
        ? createMemoryWindow()
        : createUpstashGuard((backend as RedisBackend).client, { timeoutMs: (backend as RedisBackend).timeoutMs }),
    storage,
    checkStorage: createStorageHealth(storage),
    engines: overrides.engines ?? createEngines(config.generation, engineShared),
    gpuPools,
    enhancer: overrides.enhancer ?? createEnhancer(config),
    enhanceRoutes: createEnhanceRoutes(config, engineShared),
    mailer: config.mail ? createMailer(config.mail) : null,
    sweepStats: createSweepStats(),
    checkDisk: createDiskChecker(),
    proxies: parseTrustedProxies(config.trustedProxies),
    pepper,
    buckets: bucketsOf(config.limits),
    queues: {
      generate: new WorkQueue("generate", config.work.generateConcurrency, config.work.generateQueue),
      enhance: new WorkQueue("enhance", config.work.enhanceConcurrency, config.work.enhanceQueue),
      decode: new WorkQueue("decode", config.work.decodeConcurrency, config.work.decodeQueue),
    },
    pixels,
    uploads: new UploadGate({
      pixels,
      capacity: config.upload.maxInflightBytes,
      maxFileBytes: config.upload.maxBytes,
      idleTimeoutMs: config.upload.idleTimeoutMs,
      timeoutMs: config.upload.timeoutMs,
    }),
    streams: new StreamSlots(),
    jobWatch: createJobWatcher(repositories.jobs),
    runner,
    tier: openTier(config, { jobs: repositories.jobs, runner, storage }),
    webhookWorker,
    drain,
  };
}

/**
 * The background work of a serving process: every live instance sweeps expired jobs, so the jobs of one that died
 * are failed and refunded by another; and webhook deliveries go out.
 */
export function startBackground(svc: Services): void {
  svc.runner.watch();
  startIdempotencySweep(svc);
  followJobChanges(svc.backend, svc.jobWatch);
  svc.webhookWorker.start();
}

/**
 * Every live instance takes over the Idempotency-Key claims whose request died with its instance (the lease
 * lapsed) and gives their units back: within IDEMPOTENCY_LEASE_MS and this interval, well inside 2 minutes.
 */
function startIdempotencySweep(svc: Services): void {
  const sweep = () =>
    void reclaimLapsedClaims(svc.idempotency, (units) => refundUnits(svc.quota, units)).catch((err: unknown) =>
      log.warn("idempotency sweep failed", describeError(err)),
    );
  setInterval(sweep, Math.min(15_000, svc.config.idempotency.leaseMs / 2)).unref();
  sweep();
}

export function getServices(): Services {
  return processSingleton("services", () => {
    const svc = createServices(getConfig());
    startBackground(svc);
    return svc;
  });
}

function createJobRunner(
  config: Config,
  deps: Pick<Services, "quota" | "jobs" | "keys" | "usage" | "pepper">,
  webhooks: WebhookWorker,
  drain: Drain,
): JobRunner {
  return new JobRunner({
    drain,
    jobs: deps.jobs,
    refund: (units: HeldUnit[]) => refundUnits(deps.quota, units),
    describeFailure: (err, jobId) => {
      const { code, message } = toApiError(err, jobId);
      return { code, message };
    },
    webhookFor: (job) => webhookFor(job, (keyId) => signingSecretOf(deps, keyId)),
    onFinished: (job) => {
      // Its delivery was written with its end: the first attempt goes now, not at the next poll.
      if (job.internal.webhookUrl) webhooks.poke();
      // A synchronous request's job is counted by the request, with its answer.
      if (!job.internal.sync) void recordJob(deps, job);
    },
    leaseMs: config.jobs.leaseMs,
    // On the work tier, BullMQ's stalled-job check hands a dead worker's job to another: no leases to sweep.
    leased: config.tier.kind === "inline",
  });
}
