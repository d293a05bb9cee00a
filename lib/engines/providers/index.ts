// Builds the adapter for one configured route from the provider's credentials and base URL.
import { createBoundedFetch, type FetchFn } from "@/lib/engines/bounded-fetch";
import type { ProviderName } from "@/lib/engines/routes";
import { createGuardedFetch } from "@/lib/net/guarded-fetch";
import { createBflCall } from "./bfl";
import { createFalCall } from "./fal";
import { createHostPolicy } from "./hosts";
import { createOpenAiCall } from "./openai";
import { createReplicateCall } from "./replicate";
import { createStabilityCall } from "./stability";
import { createTogetherCall } from "./together";
import type { ProviderCall, ProviderConfig, ProviderSettings } from "./types";

const FACTORIES: Record<ProviderName, (modelId: string, settings: ProviderSettings) => ProviderCall> = {
  bfl: createBflCall,
  fal: createFalCall,
  openai: createOpenAiCall,
  replicate: createReplicateCall,
  stability: createStabilityCall,
  together: createTogetherCall,
};

/** Every request of the route, the SDK's own polls and downloads included, goes through the provider's guarded fetch. */
export function createProviderCall(provider: ProviderName, modelId: string, config: ProviderConfig): ProviderCall {
  return FACTORIES[provider](modelId, {
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    fetch: createProviderFetch(provider, config),
  });
}

/** The one fetch a provider's routes (generation and enhancement) may use: its hosts only, bounded in size. */
export function createProviderFetch(
  provider: ProviderName,
  config: Pick<ProviderConfig, "baseUrl" | "resolve">,
): FetchFn {
  const guarded = createGuardedFetch({ policy: createHostPolicy(provider, config.baseUrl), resolve: config.resolve });
  return createBoundedFetch(guarded);
}
