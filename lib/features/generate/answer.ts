// The 200 body of a generation, whichever process made it (this one, or a worker of the work tier).
import type { GeneratedBatch, GenerateInput } from "@/lib/engines/generate";
import type { Usage } from "@/lib/quota/types";
import type { GenerateResponse } from "@/lib/schemas/generate";

/** The usage after `failed` units went back. */
export function refunded(usage: Usage, failed: number): Usage {
  return { ...usage, used: usage.used - failed, remaining: usage.remaining + failed };
}

/** The 1.1 body describing the first image; `images` (and the edit's source) when the request used 1.2 fields. */
export function generateBody(
  input: GenerateInput,
  batch: GeneratedBatch,
  usage: Usage,
  uses12: boolean,
): GenerateResponse {
  const [first] = batch.images;
  return {
    success: true,
    url: first.url,
    model: input.model,
    ratio: input.edit?.ratio ?? input.ratio,
    usage: usage.used,
    remaining: usage.remaining,
    id: first.id,
    style: input.style,
    width: first.width,
    height: first.height,
    seed: first.seed,
    engine: first.engine,
    ai: first.ai,
    // Image library: when the image goes, and the token that deletes it.
    expires_at: first.expiresAt,
    delete_token: first.deleteToken,
    ...(uses12 && {
      images: batch.images.map((image) => ({
        url: image.url,
        id: image.id,
        seed: image.seed,
        width: image.width,
        height: image.height,
        expires_at: image.expiresAt,
        delete_token: image.deleteToken,
      })),
    }),
    ...(input.edit?.sourceImageId !== undefined && { source_image_id: input.edit.sourceImageId }),
  };
}
