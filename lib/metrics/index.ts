// The process's Prometheus metrics: one registry (Next may bundle this module once per route, so it lives in a
// process singleton), the metric table, and small hooks the domain calls. Label values are bounded by construction:
// route patterns, catalogue names, configured route ids, outcomes; never a key, an address or a prompt.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { processSingleton } from "@/lib/singleton";

/** Seconds: from a cached status read to a slow provider chain. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

type Registers = Registry[];

/** HTTP requests, and sync and async work by outcome. */
function requestMetrics(registers: Registers) {
  return {
    requests: new Counter({
      name: "darkroom_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status.",
      labelNames: ["method", "route", "status"] as const,
      registers,
    }),
    requestSeconds: new Histogram({
      name: "darkroom_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern and status.",
      labelNames: ["method", "route", "status"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    jobs: new Counter({
      name: "darkroom_jobs_total",
      help: "Generate and enhance requests (sync, at the answer) and async jobs (at the end), by kind, model, engine and outcome.",
      labelNames: ["kind", "model", "engine", "outcome"] as const,
      registers,
    }),
    jobSeconds: new Histogram({
      name: "darkroom_job_duration_seconds",
      help: "Time a sync request took to answer, or an async job ran (start to finish), by kind, model and outcome.",
      labelNames: ["kind", "model", "outcome"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    asyncJobs: new Counter({
      name: "darkroom_async_jobs_finished_total",
      help: "Async jobs finished by this instance or its sweep, by kind and final status.",
      labelNames: ["kind", "status"] as const,
      registers,
    }),
  };
}

/** The BullMQ work tier's workers and queues. */
function tierMetrics(registers: Registers) {
  return {
    tierWorkers: new Gauge({
      name: "darkroom_tier_workers_alive",
      help: "Work tier (WORK_TIER=bullmq): worker processes whose heartbeat is current.",
      registers,
    }),
    tierDepth: new Gauge({
      name: "darkroom_tier_queue_depth",
      help: "Work tier: jobs waiting in each BullMQ queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
    tierRunning: new Gauge({
      name: "darkroom_tier_queue_running",
      help: "Work tier: jobs a worker runs now, per BullMQ queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
    tierOldest: new Gauge({
      name: "darkroom_tier_queue_oldest_age_seconds",
      help: "Work tier: how long the oldest waiting job of each BullMQ queue has waited.",
      labelNames: ["queue"] as const,
      registers,
    }),
    tierOutcomes: new Gauge({
      name: "darkroom_tier_jobs_finished",
      help: "Work tier: jobs the workers finished, by final status (a count kept in Redis by every worker).",
      labelNames: ["status"] as const,
      registers,
    }),
    tierStalls: new Gauge({
      name: "darkroom_tier_stalls",
      help: "Work tier: jobs whose worker died or froze, so another ran them (a count kept in Redis).",
      registers,
    }),
  };
}

/** The in-process work queues, and quota refusals. */
function queueMetrics(registers: Registers) {
  return {
    queueWaiting: new Gauge({
      name: "darkroom_queue_waiting",
      help: "Work waiting for a slot, per work queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
    queueRunning: new Gauge({
      name: "darkroom_queue_running",
      help: "Work running, per work queue.",
      labelNames: ["queue"] as const,
      registers,
    }),
    queueWaitingLimit: new Gauge({
      name: "darkroom_queue_waiting_limit",
      help: "Most work a queue lets wait before it answers busy.",
      labelNames: ["queue"] as const,
      registers,
    }),
    queueConcurrency: new Gauge({
      name: "darkroom_queue_concurrency",
      help: "Most work a queue runs at once.",
      labelNames: ["queue"] as const,
      registers,
    }),
    quotaRefusals: new Counter({
      name: "darkroom_quota_refusals_total",
      help: "Requests refused 429 for quota, by plan and endpoint.",
      labelNames: ["plan", "endpoint"] as const,
      registers,
    }),
  };
}

/** Provider routes, GPU pool servers and wrong operator tokens. */
function routeMetrics(registers: Registers) {
  return {
    routeAttempts: new Counter({
      name: "darkroom_route_attempts_total",
      help: "Provider and GPU route attempts, by route id and outcome (ok, moderated, failed, cancelled).",
      labelNames: ["route", "outcome"] as const,
      registers,
    }),
    routeUp: new Gauge({
      name: "darkroom_route_up",
      help: "1 while a model's route (or an enhance mode's, model=\"enhance:<mode>\") is healthy, 0 while its last calls all failed (or its GPU pool is all out).",
      labelNames: ["model", "route"] as const,
      registers,
    }),
    gpuServerState: new Gauge({
      name: "darkroom_gpu_server_state",
      help: "Each GPU pool server's state: 1 on the current one of ok, failing, out (servers by position, never URL).",
      labelNames: ["pool", "server", "state"] as const,
      registers,
    }),
    gpuServerInFlight: new Gauge({
      name: "darkroom_gpu_server_in_flight",
      help: "Work this instance has in flight on each GPU pool server.",
      labelNames: ["pool", "server"] as const,
      registers,
    }),
    wrongTokens: new Counter({
      name: "darkroom_wrong_token_attempts_total",
      help: "Wrong operator tokens presented, by credential (admin, cron, metrics) and answer (refused 401, rate_limited 429).",
      labelNames: ["credential", "answer"] as const,
      registers,
    }),
  };
}

/** Webhook deliveries, stored images and retention sweeps. */
function deliveryMetrics(registers: Registers) {
  return {
    webhooks: new Counter({
      name: "darkroom_webhook_deliveries_total",
      help: "Webhook delivery attempts, by outcome (delivered, retry, gave_up, refused, breaker_open).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    imagesStored: new Counter({
      name: "darkroom_images_stored_total",
      help: "Images written to storage, by kind.",
      labelNames: ["kind"] as const,
      registers,
    }),
    imageBytesStored: new Counter({
      name: "darkroom_image_bytes_stored_total",
      help: "Bytes of images written to storage.",
      registers,
    }),
    sweeps: new Counter({
      name: "darkroom_image_sweeps_total",
      help: "Retention sweep runs, by outcome (ok, failed).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    imagesSwept: new Counter({
      name: "darkroom_images_swept_total",
      help: "Images the retention sweep removed (outcome removed) or could not remove (outcome failed).",
      labelNames: ["outcome"] as const,
      registers,
    }),
  };
}

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    ...requestMetrics(registers),
    ...tierMetrics(registers),
    ...queueMetrics(registers),
    ...routeMetrics(registers),
    ...deliveryMetrics(registers),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function getMetrics(): Metrics {
  return processSingleton("metrics", createMetrics);
}

/** A work queue reports itself once; its gauges are read at each scrape. */
export type QueueGauge = {
  name: string;
  concurrency: number;
  maxQueued: number;
  stats: { running: number; queued: number };
};

const queuesOf = () => processSingleton("metrics-queues", () => new Map<string, QueueGauge>());

/** The newest queue of a name wins (tests build many; the server builds one per name). */
export function trackQueue(queue: QueueGauge): void {
  queuesOf().set(queue.name, queue);
}

/** Live state read at scrape time: what no hook counts (queues, route and GPU pool health). */
export type LiveState = {
  routes: { model: string; route: string; failing: boolean }[];
  pools: { kind: string; servers: { server: number; health: "ok" | "failing" | "out"; in_flight: number }[] }[];
  /** The work tier's workers and queues; absent inline. */
  tier?: {
    workers_alive: number | null;
    queues: { name: string; depth: number; running: number; oldest_age_seconds: number }[];
    stalls: number | null;
    outcomes: Record<string, number>;
  };
};

/** The work tier's gauges, from what Redis says now. */
function setTierGauges(m: Metrics, tier: NonNullable<LiveState["tier"]>): void {
  m.tierWorkers.set(tier.workers_alive ?? 0);
  for (const q of tier.queues) {
    m.tierDepth.set({ queue: q.name }, q.depth);
    m.tierRunning.set({ queue: q.name }, q.running);
    m.tierOldest.set({ queue: q.name }, q.oldest_age_seconds);
  }
  for (const [status, count] of Object.entries(tier.outcomes)) m.tierOutcomes.set({ status }, count);
  m.tierStalls.set(tier.stalls ?? 0);
}

/** The Prometheus text exposition of everything, with the live gauges set from `live` first. */
export async function renderMetrics(live: LiveState): Promise<{ contentType: string; body: string }> {
  const m = getMetrics();
  for (const q of queuesOf().values()) {
    m.queueWaiting.set({ queue: q.name }, q.stats.queued);
    m.queueRunning.set({ queue: q.name }, q.stats.running);
    m.queueWaitingLimit.set({ queue: q.name }, q.maxQueued);
    m.queueConcurrency.set({ queue: q.name }, q.concurrency);
  }
  if (live.tier) setTierGauges(m, live.tier);
  m.routeUp.reset();
  for (const r of live.routes) m.routeUp.set({ model: r.model, route: r.route }, r.failing ? 0 : 1);
  m.gpuServerState.reset();
  m.gpuServerInFlight.reset();
  for (const pool of live.pools) {
    for (const s of pool.servers) {
      const server = String(s.server);
      for (const state of ["ok", "failing", "out"] as const) {
        m.gpuServerState.set({ pool: pool.kind, server, state }, s.health === state ? 1 : 0);
      }
      m.gpuServerInFlight.set({ pool: pool.kind, server }, s.in_flight);
    }
  }
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}

export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  const m = getMetrics();
  const labels = { method, route, status: String(status) };
  m.requests.inc(labels);
  m.requestSeconds.observe(labels, seconds);
}

/** As in the usage history: succeeded (200), failed (5xx) or refused (4xx past the key check, a cancel). */
export type JobOutcome = "succeeded" | "failed" | "refused";

export function observeJob(
  job: { kind: "generate" | "enhance"; model: string; engine: string; outcome: JobOutcome },
  seconds: number,
): void {
  const m = getMetrics();
  m.jobs.inc(job);
  m.jobSeconds.observe({ kind: job.kind, model: job.model, outcome: job.outcome }, seconds);
}

export function observeAsyncJob(kind: string, status: string): void {
  getMetrics().asyncJobs.inc({ kind, status });
}

export function observeQuotaRefusal(plan: string, endpoint: string): void {
  getMetrics().quotaRefusals.inc({ plan, endpoint });
}

export type AttemptOutcome = "ok" | "moderated" | "failed" | "cancelled";

export function observeRouteAttempt(route: string, outcome: AttemptOutcome): void {
  getMetrics().routeAttempts.inc({ route, outcome });
}

export type OperatorCredential = "admin" | "cron" | "metrics";

export function observeWrongToken(credential: OperatorCredential, answer: "refused" | "rate_limited"): void {
  getMetrics().wrongTokens.inc({ credential, answer });
}

export function observeWebhook(outcome: "delivered" | "retry" | "gave_up" | "refused" | "breaker_open"): void {
  getMetrics().webhooks.inc({ outcome });
}

export function observeImageStored(kind: string, bytes: number): void {
  const m = getMetrics();
  m.imagesStored.inc({ kind });
  m.imageBytesStored.inc(bytes);
}

export function observeSweep(ok: boolean, removed: number, failed: number): void {
  const m = getMetrics();
  m.sweeps.inc({ outcome: ok ? "ok" : "failed" });
  m.imagesSwept.inc({ outcome: "removed" }, removed);
  m.imagesSwept.inc({ outcome: "failed" }, failed);
}
