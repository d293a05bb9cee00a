// Runs one generation: engine → checks → durable storage, before any URL is handed out.
import sharp from "sharp";
import type { Context } from "@/lib/api/with-api";
import { MODELS } from "@/lib/catalog/models";
import { applyStyle } from "@/lib/catalog/styles";
import { DomainError, GenerationFailed } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import type { GenerateRequest, GenerateResponse } from "@/lib/schemas/generate";
import { engineFor } from "./index";

export async function generateImage(input: GenerateRequest, ctx: Context): Promise<GenerateResponse> {
  const size = MODELS[input.model].sizes[input.ratio];
  const engine = engineFor(input.model);
  const job = {
    prompt: input.prompt,
    styledPrompt: applyStyle(input.style, input.prompt),
    model: input.model,
    style: input.style,
    ratio: input.ratio,
    width: size.width,
    height: size.height,
    seed: input.seed,
    negativePrompt: input.negative_prompt,
    requestId: ctx.requestId,
    signal: ctx.signal,
  };

  const image = await ctx.svc.queues.generate.run(async () => {
    try {
      return await engine.generate(job);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      log.error("generation failed", { request_id: ctx.requestId, engine: engine.id, ...describeError(err) });
      throw new GenerationFailed("generation failed");
    }
  }, ctx.signal);

  const meta = await sharp(image.png).metadata();
  if (meta.format !== "png" || meta.width !== image.width || meta.height !== image.height) {
    log.error("engine returned a malformed image", { request_id: ctx.requestId, engine: engine.id });
    throw new GenerationFailed("malformed image");
  }
  const stored = await ctx.svc.storage.putPng(image.png, ctx.origin);
  const lease = ctx.lease!;
  return {
    success: true,
    url: stored.url,
    model: input.model,
    ratio: input.ratio,
    usage: lease.used,
    remaining: lease.remaining,
    id: stored.id,
    style: input.style,
    width: image.width,
    height: image.height,
    seed: image.seed,
    engine: image.engine ?? engine.id,
    ai: image.ai ?? engine.ai,
  };
}
