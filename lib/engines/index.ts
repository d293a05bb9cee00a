// Which engine serves each model: the fallback chain configured by MODEL_* (or its default), built once per process.
import type { ModelName } from "@/lib/catalog/models";
import { MODEL_NAMES } from "@/lib/catalog/models";
import type { InputKind } from "@/lib/catalog/route-inputs";
import { type Config, getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/singleton";
import { assertModelTakes, type CapabilityEnv, inputsOf, variantFor } from "./capabilities";
import { createChainEngine } from "./chain";
import { isRouteFailing } from "./health";
import { createLocalCall, describeLocalPools, type PoolDescription } from "./local";
import { previewEngine } from "./preview";
import { createProviderCall } from "./providers";
import { isLocalKind, PREVIEW_ROUTE, type Route } from "./routes";
import { type Sizing, sizingOf } from "./sizing";
import type { ImageEngine } from "./types";

export function buildEngine(model: ModelName, config: Config): ImageEngine {
  const routes = config.generation.chains[model];
  if (routes.length === 1 && routes[0].provider === PREVIEW_ROUTE) return previewEngine;
  const { credentials, baseUrls } = config.generation.providers;
  return createChainEngine(model, routes, {
    timeoutMs: config.generation.timeoutMs,
    capabilities: capabilitiesOf(config),
    callFor: (route) => {
      if (route.provider === PREVIEW_ROUTE) throw new Error("preview has no provider call");
      if (isLocalKind(route.provider)) return createLocalCall(route.provider, route.modelId, config.generation.local);
      // Config has already refused a route without credentials.
      return createProviderCall(route.provider, route.modelId, {
        apiKey: credentials[route.provider] ?? "",
        baseUrl: baseUrls[route.provider],
      });
    },
  });
}

export function capabilitiesOf(config: Config): CapabilityEnv {
  const { baseUrls, local } = config.generation.providers;
  return { baseUrls, local, overrides: config.generation.editOverrides };
}

/** Refuses (UnsupportedInput) a request no configured route of the model can take; before any quota is taken. */
export function assertEngineTakes(model: ModelName, need: InputKind): void {
  const config = getConfig();
  assertModelTakes(model, need, config.generation.chains, capabilitiesOf(config));
}

/** How the route that would serve `need` for the model sizes its output: the first route of the chain that takes it. */
export function sizingFor(model: ModelName, need: InputKind): Sizing {
  const config = getConfig();
  const capabilities = capabilitiesOf(config);
  for (const route of config.generation.chains[model]) {
    const variant = variantFor(model, route, need, capabilities);
    if (variant) return sizingOf(variant);
  }
  return sizingOf(config.generation.chains[model][0]);
}

export function engineFor(model: ModelName): ImageEngine {
  const engines = processSingleton("engines", () => new Map<ModelName, ImageEngine>());
  let engine = engines.get(model);
  if (!engine) {
    engine = buildEngine(model, getConfig());
    engines.set(model, engine);
  }
  return engine;
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

export function describeEngines(): EngineDescription[] {
  const config = getConfig();
  const capabilities = capabilitiesOf(config);
  return MODEL_NAMES.map((name) => describeChain(name, config.generation.chains[name], capabilities));
}

function describeChain(name: ModelName, routes: Route[], capabilities: CapabilityEnv): EngineDescription {
  const ai = routes[0].provider !== PREVIEW_ROUTE;
  return {
    name,
    engine: routes[0].id,
    ai,
    configured: routes.some((r) => r.provider !== PREVIEW_ROUTE),
    routes: routes.map((r) => ({ route: r.id, failing: isRouteFailing(r.id) })),
    inputs: inputsOf(name, routes, capabilities),
  };
}

/** The local GPU pools and their servers' health, without their URLs. */
export function describeGpuPools(): PoolDescription[] {
  return describeLocalPools(getConfig().generation.local);
}
