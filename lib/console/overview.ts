// What the console's overview shows beside the usage charts: each provider route's recent health and latency, the
// work queues now, and today's use of the Free plan's global caps. Route health and queues are this instance's.
import type { Config } from "@/lib/config";
import type { Engines } from "@/lib/engines";
import type { RouteHealth } from "@/lib/engines/health";
import { PREVIEW_ROUTE } from "@/lib/engines/routes";
import type { EnhanceRoutes } from "@/lib/enhance/routes/remote-chain";
import type { ImageStore } from "@/lib/images/store";
import type { SweepStats } from "@/lib/images/sweep";
import { describeError, log } from "@/lib/log";
import type { Buckets } from "@/lib/quota/policies";
import type { QuotaCounters } from "@/lib/quota/types";
import type { WorkTier } from "@/lib/tier/types";
import type { WorkQueue } from "@/lib/work/queue";

export type RouteView = { route: string; models: string[] } & RouteHealth;
export type QueueView = { running: number; queued: number; concurrency: number; max_queued: number };
export type CapView = { used: number; limit: number } | null;

export type Overview = {
  routes: RouteView[];
  queues: { generate: QueueView; enhance: QueueView };
  /** null: the cap is off (0). */
  free_caps: { generate: CapView; enhance: CapView };
  store: "sqlite" | "upstash" | "redis";
  /** Models served by the built-in preview engine alone. */
  preview_models: string[];
  /** Stored images now (null when the store cannot count them), and this instance's retention sweeps. */
  images: { stored: number | null; retention_days: number; sweeps: SweepStats };
  work_tier: TierView;
};

export type TierView = {
  kind: "inline" | "bullmq";
  workers_alive: number | null;
  queues: { name: string; depth: number; running: number; oldest_age_seconds: number }[];
  stalls: number | null;
  outcomes: Record<string, number>;
  error?: string;
};

/** The work tier's workers and queues as the console and /metrics show them. */
export async function tierView(tier: Pick<WorkTier, "kind" | "stats">): Promise<TierView> {
  const empty = { kind: tier.kind, workers_alive: null, queues: [], stalls: null, outcomes: {} };
  try {
    const stats = await tier.stats();
    if (!stats) return empty;
    return {
      kind: tier.kind,
      workers_alive: stats.workersAlive,
      queues: stats.queues.map((q) => ({
        name: q.name,
        depth: q.depth,
        running: q.running,
        oldest_age_seconds: Math.round(q.oldestAgeSeconds * 10) / 10,
      })),
      stalls: stats.stalls,
      outcomes: stats.outcomes,
    };
  } catch (err) {
    log.warn("work tier: the queues could not be read", describeError(err));
    return { ...empty, error: "The work queues cannot be read (Redis is unavailable)." };
  }
}

type Deps = {
  sweepStats: SweepStats;
  engines: Pick<Engines, "describe" | "routeHealth">;
  enhanceRoutes: Pick<EnhanceRoutes, "describe">;
  quota: QuotaCounters;
  backend: { readonly kind: "sqlite" | "upstash" | "redis" };
  buckets: Buckets;
  config: Config;
  queues: { generate: WorkQueue; enhance: WorkQueue };
  images: ImageStore;
  tier: Pick<WorkTier, "kind" | "stats">;
};

export async function consoleOverview(deps: Deps): Promise<Overview> {
  const routes = new Map<string, string[]>();
  const previewModels: string[] = [];
  for (const model of deps.engines.describe()) {
    if (!model.configured) previewModels.push(model.name);
    for (const { route } of model.routes) {
      if (route === PREVIEW_ROUTE) continue;
      routes.set(route, [...(routes.get(route) ?? []), model.name]);
    }
  }
  // The enhance modes' cloud and GPU routes share the health book, listed by route id with "enhance:<mode>".
  for (const chain of deps.enhanceRoutes.describe()) {
    for (const { route } of chain.routes) {
      if (route.startsWith("onnx:")) continue;
      routes.set(route, [...(routes.get(route) ?? []), `enhance:${chain.mode}`]);
    }
  }
  const cap = async (bucket: Buckets["freeGlobalGenerations"]): Promise<CapView> => {
    if (bucket.limit === 0) return null;
    // The identity chargesFor counts the whole Free plan on.
    const usage = await deps.quota.peek(bucket, "all");
    return { used: usage.used, limit: usage.limit };
  };
  const { work } = deps.config;
  const [generateCap, enhanceCap, stored, workTier] = await Promise.all([
    cap(deps.buckets.freeGlobalGenerations),
    cap(deps.buckets.freeGlobalEnhancements),
    deps.images.count().catch(() => null),
    tierView(deps.tier),
  ]);
  return {
    routes: [...routes].map(([route, models]) => ({ route, models, ...deps.engines.routeHealth(route) })),
    queues: {
      generate: {
        ...deps.queues.generate.stats,
        concurrency: work.generateConcurrency,
        max_queued: work.generateQueue,
      },
      enhance: { ...deps.queues.enhance.stats, concurrency: work.enhanceConcurrency, max_queued: work.enhanceQueue },
    },
    free_caps: { generate: generateCap, enhance: enhanceCap },
    store: deps.backend.kind,
    preview_models: previewModels,
    images: { stored, retention_days: deps.config.images.retentionDays, sweeps: { ...deps.sweepStats } },
    work_tier: workTier,
  };
}
