// fal.ai (FLUX pro, FLUX schnell, fast SDXL) through @ai-sdk/fal, on fal's synchronous endpoint.
import { createFal } from "@ai-sdk/fal";
import { ModerationError } from "@/lib/engines/failures";
import { firstImageMeta, runImageModel, seedOf, whiteMaskEdit } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

/** Default https://fal.run (the sync endpoint: one request, the image URL in the answer); FAL_BASE_URL replaces it. */
export function createFalCall(modelId: string, settings: ProviderSettings): ProviderCall {
  const model = createFal({ apiKey: settings.apiKey, baseURL: settings.baseUrl, fetch: settings.fetch }).image(modelId);
  const isSdxl = modelId.includes("sdxl");
  return async ({ job, signal }) => {
    const { bytes, metadata } = await runImageModel(
      model,
      {
        prompt: job.styledPrompt,
        size: `${job.width}x${job.height}`,
        seed: job.seed,
        // image_url and mask_url (white changes), as data URIs.
        ...(await whiteMaskEdit(job)),
        providerOptions: {
          fal: isSdxl
            ? {
                format: "png",
                enableSafetyChecker: true,
                ...(job.negativePrompt ? { negative_prompt: job.negativePrompt } : {}),
                // fast-sdxl's image-to-image and inpainting take how far to move from the image.
                ...(job.input ? { strength: job.input.strength } : {}),
              }
            : { outputFormat: "png", enableSafetyChecker: true },
        },
      },
      signal,
    );
    // fal blanks a flagged image and says so in has_nsfw_concepts; the SDK folds that into images[].nsfw.
    if (firstImageMeta(metadata, "fal").nsfw === true) throw new ModerationError("fal: has_nsfw_concepts");
    const fal = metadata.fal as { seed?: unknown } | undefined;
    return { bytes, seed: seedOf(fal?.seed) ?? job.seed };
  };
}
