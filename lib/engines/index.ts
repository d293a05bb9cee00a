// Which engine serves each model: the fallback chain configured by MODEL_* (or its default). The composition root
// (lib/services.ts) holds one Engines per process.
import type { ModelName } from "@/lib/catalog/models";
import { MODEL_NAMES } from "@/lib/catalog/models";
import type { InputKind } from "@/lib/catalog/route-inputs";
import { assertModelTakes, type CapabilityEnv, inputsOf, variantFor } from "./capabilities";
import { createChainEngine } from "./chain";
import { createHealthBook, type HealthBook, type RouteHealth } from "./health";
import { createLocalCall, describeLocalPools, type PoolDescription } from "./local";
import { createGpuPools, type GpuPools } from "./local/pool";
import type { LocalSettings } from "./local/settings";
import { previewEngine } from "./preview";
import { createProviderCall } from "./providers";
import { isLocalKind, PREVIEW_ROUTE, type ProviderRouteEnv, type Route } from "./routes";
import { type Sizing, sizingOf } from "./sizing";
import type { ImageEngine } from "./types";

/** The generation part of the configuration (lib/config.ts): every model's chain and what its routes need. */
export type GenerationSettings = {
  timeoutMs: number;
  chains: Record<ModelName, Route[]>;
  providers: ProviderRouteEnv;
  local: LocalSettings;
  /** The operator's MODEL_*_IMAGE / MODEL_*_MASK edit models. */
  editOverrides?: CapabilityEnv["overrides"];
};

export function capabilitiesOf(generation: GenerationSettings): CapabilityEnv {
  const { baseUrls, local } = generation.providers;
  return { baseUrls, local, overrides: generation.editOverrides };
}

/** What a process's engines share: one health book and one set of GPU pools. */
export type EngineShared = { health: HealthBook; pools: GpuPools };

export const createEngineShared = (pools: GpuPools = createGpuPools()): EngineShared => ({
  health: createHealthBook(),
  pools,
});

export function buildEngine(
  model: ModelName,
  { generation }: { generation: GenerationSettings },
  shared: EngineShared = createEngineShared(),
): ImageEngine {
  const routes = generation.chains[model];
  if (routes.length === 1 && routes[0].provider === PREVIEW_ROUTE) return previewEngine;
  const { credentials, baseUrls } = generation.providers;
  return createChainEngine(model, routes, {
    timeoutMs: generation.timeoutMs,
    capabilities: capabilitiesOf(generation),
    health: shared.health,
    callFor: (route) => {
      if (route.provider === PREVIEW_ROUTE) throw new Error("preview has no provider call");
      if (isLocalKind(route.provider))
        return createLocalCall(route.provider, route.modelId, generation.local, shared.pools);
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
  /** What some configured route takes: text, an image, an image with a mask. */
  inputs: InputKind[];
};

export type Engines = {
  /** The model's engine, built on first use. */
  engineFor(model: ModelName): ImageEngine;
  /** Refuses (UnsupportedInput) a request no configured route of the model can take; before any quota is taken. */
  assertTakes(model: ModelName, need: InputKind): void;
  /** How the first route of the model's chain that takes `need` sizes its output. */
  sizingFor(model: ModelName, need: InputKind): Sizing;
  /** Every model's chain with its routes' recent health, for /api/status and the console. */
  describe(): EngineDescription[];
  /** The local GPU pools and their servers' health, without their URLs. */
  describeGpuPools(): PoolDescription[];
  /** A route's recent calls in this process: failures and latency, for the console. */
  routeHealth(routeId: string): RouteHealth;
};

/**
 * The engines of `generation`'s chains; `shared` holds the process's GPU server pools and route health book, which
 * enhancement's routes share (so the console and status show both by route id).
 */
export function createEngines(generation: GenerationSettings, shared: EngineShared = createEngineShared()): Engines {
  const engines = new Map<ModelName, ImageEngine>();
  const capabilities = capabilitiesOf(generation);
  return {
    engineFor(model) {
      let engine = engines.get(model);
      if (!engine) {
        engine = buildEngine(model, { generation }, shared);
        engines.set(model, engine);
      }
      return engine;
    },
    assertTakes: (model, need) => assertModelTakes(model, need, generation.chains, capabilities),
    sizingFor(model, need) {
      for (const route of generation.chains[model]) {
        const variant = variantFor(model, route, need, capabilities);
        if (variant) return sizingOf(variant);
      }
      return sizingOf(generation.chains[model][0]);
    },
    describe: () =>
      MODEL_NAMES.map((name) => describeChain(name, generation.chains[name], capabilities, shared.health)),
    describeGpuPools: () => describeLocalPools(generation.local, shared.pools),
    routeHealth: (routeId) => shared.health.of(routeId),
  };
}

function describeChain(
  name: ModelName,
  routes: Route[],
  capabilities: CapabilityEnv,
  health: HealthBook,
): EngineDescription {
  const ai = routes[0].provider !== PREVIEW_ROUTE;
  return {
    name,
    engine: routes[0].id,
    ai,
    configured: routes.some((r) => r.provider !== PREVIEW_ROUTE),
    routes: routes.map((r) => ({ route: r.id, failing: health.isFailing(r.id) })),
    inputs: inputsOf(name, routes, capabilities),
  };
}
