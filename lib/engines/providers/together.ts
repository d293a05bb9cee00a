// Together AI (FLUX 1.1 [pro], FLUX.1 [schnell]) through @ai-sdk/togetherai: /images/generations, base64 answer.
import { createTogetherAI } from "@ai-sdk/togetherai";
import { runImageModel } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

/** Default https://api.together.xyz/v1; TOGETHER_BASE_URL replaces it. */
export function createTogetherCall(modelId: string, settings: ProviderSettings): ProviderCall {
  const model = createTogetherAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, fetch: settings.fetch }).image(
    modelId,
  );
  // schnell is a 4-step distilled model; more steps only cost time.
  const options = modelId.includes("schnell") ? { togetherai: { steps: 4 } } : undefined;
  return async ({ job, signal }) => {
    const { bytes } = await runImageModel(
      model,
      {
        prompt: job.styledPrompt,
        size: `${job.width}x${job.height}`,
        seed: job.seed,
        providerOptions: options,
        // Kontext takes image_url; Together refuses masks, so the catalogue never routes one here.
        ...(job.input && { images: [job.input.png] }),
      },
      signal,
    );
    // Together does not echo the seed; it is known only when the caller chose it.
    return { bytes, seed: job.seed };
  };
}
