// Replicate (FLUX 1.1 [pro], FLUX schnell, SDXL) through @ai-sdk/replicate, with polling when `Prefer: wait` runs out.
import { createReplicate } from "@ai-sdk/replicate";
import type { Ratio } from "@/lib/catalog/models";
import { runImageModel, whiteMaskEdit } from "./ai-image";
import { completePredictions } from "./replicate-poll";
import type { ProviderCall, ProviderSettings } from "./types";

/** Community models have no unversioned endpoint, so a bare id is pinned to a known version. */
const PINNED_VERSIONS: Record<string, string> = {
  "stability-ai/sdxl": "7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc",
};

/** Default https://api.replicate.com/v1; REPLICATE_BASE_URL replaces it. */
export function createReplicateCall(modelId: string, settings: ProviderSettings): ProviderCall {
  const pinned = modelId.includes(":")
    ? modelId
    : PINNED_VERSIONS[modelId]
      ? `${modelId}:${PINNED_VERSIONS[modelId]}`
      : modelId;
  const provider = createReplicate({
    apiToken: settings.apiKey,
    baseURL: settings.baseUrl,
    fetch: completePredictions(settings.fetch),
  });
  const model = provider.image(pinned);
  const base = modelId.split(":")[0];
  return async ({ job, signal, timeoutMs }) => {
    const { bytes } = await runImageModel(
      model,
      {
        prompt: job.styledPrompt,
        seed: job.seed,
        // input.image and input.mask (white changes), as data URIs.
        ...(await whiteMaskEdit(job)),
        providerOptions: {
          replicate: {
            ...(job.input
              ? editInputFor(base, job.input.strength, job.negativePrompt)
              : inputFor(base, job.width, job.height, job.ratio, job.negativePrompt)),
            // Replicate holds the request open up to 60 s; polling covers the rest of our deadline.
            maxWaitTimeInSeconds: Math.max(1, Math.min(60, Math.floor(timeoutMs / 1000))),
          },
        },
      },
      signal,
    );
    return { bytes, seed: job.seed };
  };
}

/** Edits take their size from the image: SDXL's prompt_strength is how far to move; Kontext and Fill want png. */
function editInputFor(base: string, strength: number, negativePrompt?: string): Record<string, string | number> {
  if (base === "stability-ai/sdxl")
    return { prompt_strength: strength, ...(negativePrompt ? { negative_prompt: negativePrompt } : {}) };
  return { output_format: "png" };
}

/** Each model's own input schema: FLUX pro takes custom sizes, schnell only ratios, SDXL width/height. */
function inputFor(
  base: string,
  width: number,
  height: number,
  ratio: Ratio,
  negativePrompt?: string,
): Record<string, string | number> {
  if (base === "black-forest-labs/flux-schnell") return { aspect_ratio: ratio, output_format: "png" };
  if (base === "stability-ai/sdxl")
    return { width, height, ...(negativePrompt ? { negative_prompt: negativePrompt } : {}) };
  return { aspect_ratio: "custom", width, height, output_format: "png" };
}
