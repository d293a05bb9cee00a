// Runs one enhancement in the bounded queue and stores the PNG before answering.
import { ApiError } from "@/lib/api/errors";
import type { EnhanceInput } from "@/lib/api/parse-enhance";
import type { Context } from "@/lib/api/with-api";
import { log, describeError } from "@/lib/log";
import type { EnhanceResponse } from "@/lib/schemas/enhance";
import { enhanceRaw } from "./pipeline";
import { sharpEngine } from "./sharp-engine";

export async function enhanceImage(input: EnhanceInput, ctx: Context): Promise<EnhanceResponse> {
  const engine = sharpEngine;
  const result = await ctx.svc.queues.enhance.run(async () => {
    try {
      return await enhanceRaw(engine, input.image, { strength: input.strength, scale: input.scale, signal: ctx.signal });
    } catch (err) {
      if (err instanceof ApiError || ctx.signal.aborted) throw err;
      log.error("enhance failed", { request_id: ctx.requestId, engine: engine.id, ...describeError(err) });
      throw new ApiError("server_error", "The image could not be enhanced.");
    }
  }, ctx.signal);
  const stored = await ctx.svc.storage.putPng(result.png, ctx.origin);
  const lease = ctx.lease!;
  return {
    success: true,
    url: stored.url,
    original_size: `${input.image.width}x${input.image.height}`,
    enhanced_size: `${result.width}x${result.height}`,
    id: stored.id,
    strength: input.strength,
    scale: Number(result.scale.toFixed(4)),
    engine: engine.id,
    usage: lease.used,
    remaining: lease.remaining,
  };
}
