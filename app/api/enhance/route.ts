// POST /api/enhance – enhance and upscale an uploaded photo.
import { parseEnhance } from "@/lib/api/parse-enhance";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { enhanceImage } from "@/lib/enhance/enhance";
import type { EnhanceResponse } from "@/lib/schemas/enhance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withApi("enhance", async ({ req, requestId, svc, quota, signal, origin }) => {
  const upload = await parseEnhance(req, svc.config.upload.maxBytes, svc.uploads);
  quota.note({ model: upload.model });
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
    });
    quota.note({ engine: image.engine });

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
    };
    return body;
  } finally {
    upload.release();
  }
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
