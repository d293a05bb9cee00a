// POST /api/enhance – enhance and upscale an uploaded photo.
import { recordDepsFor } from "@/lib/api/image-records";
import { parseEnhance } from "@/lib/api/parse-enhance";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { enhanceImage } from "@/lib/enhance/enhance";
import type { EnhanceResponse } from "@/lib/schemas/enhance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withApi("enhance", async ({ req, requestId, caller, svc, quota, signal, origin }) => {
  const upload = await parseEnhance(req, svc.config.upload.maxBytes, svc.uploads);
  try {
    const usage = await quota.take();

    const image = await enhanceImage(upload, {
      requestId,
      signal,
      origin,
      storage: svc.storage,
      queue: svc.queues.enhance,
      config: svc.config,
      onStart: quota.markStarted,
      ...recordDepsFor(svc, caller), // image library: the record stored with the file
    });

    const body: EnhanceResponse = {
      success: true,
      url: image.url,
      original_size: image.originalSize,
      enhanced_size: image.enhancedSize,
      id: image.id,
      strength: upload.strength,
      scale: image.scale,
      model: upload.model,
      engine: image.engine,
      usage: usage.used,
      remaining: usage.remaining,
      // Image library: when the image goes, and the token that deletes it.
      expires_at: image.expiresAt,
      delete_token: image.deleteToken,
    };
    return body;
  } finally {
    upload.release();
  }
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
