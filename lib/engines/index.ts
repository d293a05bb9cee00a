// Which engine serves each model: the fallback chain configured by MODEL_* (or its default). The composition root
// (lib/services.ts) holds one Engines per process.
import type { ModelName } from "@/lib/catalog/models";
import { MODEL_NAMES } from "@/lib/catalog/models";
import { createChainEngine } from "./chain";
import { isRouteFailing } from "./health";
import { createLocalCall, describeLocalPools, type PoolDescription } from "./local";
import type { LocalSettings } from "./local/settings";
import { previewEngine } from "./preview";
import { createProviderCall } from "./providers";
import { isLocalKind, PREVIEW_ROUTE, type ProviderRouteEnv, type Route } from "./routes";
import type { ImageEngine } from "./types";

/** The generation part of the configuration (lib/config.ts): every model's chain and what its routes need. */
export type GenerationSettings = {
  timeoutMs: number;
  chains: Record<ModelName, Route[]>;
  providers: ProviderRouteEnv;
  local: LocalSettings;
};

export function buildEngine(model: ModelName, { generation }: { generation: GenerationSettings }): ImageEngine {
  const routes = generation.chains[model];
  if (routes.length === 1 && routes[0].provider === PREVIEW_ROUTE) return previewEngine;
  const { credentials, baseUrls } = generation.providers;
  return createChainEngine(model, routes, {
    timeoutMs: generation.timeoutMs,
    callFor: (route) => {
      if (route.provider === PREVIEW_ROUTE) throw new Error("preview has no provider call");
      if (isLocalKind(route.provider)) return createLocalCall(route.provider, route.modelId, generation.local);
      // Config has already refused a route without credentials.
      return createProviderCall(route.provider, route.modelId, {
        apiKey: credentials[route.provider] ?? "",
        baseUrl: baseUrls[route.provider],
      });
    },
  });
}

export type EngineDescription = {
  name: ModelName;
  /** The active (first) route, e.g. "bfl:flux-pro-1.1" or "preview". */
  engine: string;
  ai: boolean;
  /** True when a real provider route is set up for the model. */
  configured: boolean;
  /** The whole fallback chain, in order, with each route's recent health. */
  routes: { route: string; failing: boolean }[];
};

export type Engines = {
  /** The model's engine, built on first use. */
  engineFor(model: ModelName): ImageEngine;
  /** Every model's chain with its routes' recent health, for /api/status and the console. */
  describe(): EngineDescription[];
  /** The local GPU pools and their servers' health, without their URLs. */
  describeGpuPools(): PoolDescription[];
};

export function createEngines(generation: GenerationSettings): Engines {
  const engines = new Map<ModelName, ImageEngine>();
  return {
    engineFor(model) {
      let engine = engines.get(model);
      if (!engine) {
        engine = buildEngine(model, { generation });
        engines.set(model, engine);
      }
      return engine;
    },
    describe: () => MODEL_NAMES.map((name) => describeChain(name, generation.chains[name])),
    describeGpuPools: () => describeLocalPools(generation.local),
  };
}

function describeChain(name: ModelName, routes: Route[]): EngineDescription {
  const ai = routes[0].provider !== PREVIEW_ROUTE;
  return {
    name,
    engine: routes[0].id,
    ai,
    configured: routes.some((r) => r.provider !== PREVIEW_ROUTE),
    routes: routes.map((r) => ({ route: r.id, failing: isRouteFailing(r.id) })),
  };
}
