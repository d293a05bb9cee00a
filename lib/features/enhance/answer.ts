// The 200 body of an enhancement, whichever process made it (this one, or a worker of the work tier).
import type { EnhancedResult, EnhanceInput } from "@/lib/enhance/enhance";
import type { Usage } from "@/lib/quota/types";
import type { EnhanceResponse } from "@/lib/schemas/enhance";

export function enhanceBody(input: EnhanceInput, image: EnhancedResult, usage: Usage): EnhanceResponse {
  return {
    success: true,
    url: image.url,
    original_size: image.originalSize,
    enhanced_size: image.enhancedSize,
    id: image.id,
    strength: input.strength,
    scale: image.scale,
    model: input.model,
    engine: image.engine,
    ai: image.ai,
    generative: image.generative,
    usage: usage.used,
    remaining: usage.remaining,
    // Image library: when the image goes, and the token that deletes it.
    expires_at: image.expiresAt,
    delete_token: image.deleteToken,
  };
}
