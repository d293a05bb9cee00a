// Builds the adapter for one configured route from the provider's credentials and base URL.
import type { ProviderName } from "@/lib/engines/routes";
import { createBflCall } from "./bfl";
import { createFalCall } from "./fal";
import { createOpenAiCall } from "./openai";
import { createReplicateCall } from "./replicate";
import { createStabilityCall } from "./stability";
import { createTogetherCall } from "./together";
import type { ProviderCall, ProviderSettings } from "./types";

const FACTORIES: Record<ProviderName, (modelId: string, settings: ProviderSettings) => ProviderCall> = {
  bfl: createBflCall,
  fal: createFalCall,
  openai: createOpenAiCall,
  replicate: createReplicateCall,
  stability: createStabilityCall,
  together: createTogetherCall,
};

export function createProviderCall(provider: ProviderName, modelId: string, settings: ProviderSettings): ProviderCall {
  return FACTORIES[provider](modelId, settings);
}
