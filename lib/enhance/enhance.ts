// Runs one enhancement in the bounded queue and stores the PNG before answering.
import type { EnhanceInput } from "@/lib/api/parse-enhance";
import type { Context } from "@/lib/api/with-api";
import { DomainError, EnhanceFailed } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import type { EnhanceResponse } from "@/lib/schemas/enhance";
import { runEnhanceEngine } from "./engine-registry";
import { enhanceRaw } from "./pipeline";

export async function enhanceImage(input: EnhanceInput, ctx: Context): Promise<EnhanceResponse> {
  const result = await ctx.svc.queues.enhance.run(async () => {
    const started = performance.now();
    try {
      const out = await enhanceRaw((job) => runEnhanceEngine(ctx.svc.config, job), input.image, {
        strength: input.strength,
        scale: input.scale,
        model: input.model,
        signal: ctx.signal,
      });
      // One line per job that ran: operators see timings, and tests can tell a dropped job never ran.
      log.info("enhance job", {
        request_id: ctx.requestId,
        engine: out.engine,
        model: input.model,
        size: `${out.width}x${out.height}`,
        ms: Math.round(performance.now() - started),
      });
      return out;
    } catch (err) {
      if (err instanceof DomainError || ctx.signal.aborted) throw err;
      log.error("enhance failed", { request_id: ctx.requestId, model: input.model, ...describeError(err) });
      throw new EnhanceFailed("enhance failed", { cause: err });
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
    model: input.model,
    engine: result.engine,
    usage: lease.used,
    remaining: lease.remaining,
  };
}
