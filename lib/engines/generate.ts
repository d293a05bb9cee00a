// Runs one generation: engine → checks → durable storage, before any URL is handed out.
import sharp from "sharp";
import { MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";
import { applyStyle, type StyleName } from "@/lib/catalog/styles";
import { DomainError, GenerationFailed } from "@/lib/errors";
import { type RecordDeps, storeImage } from "@/lib/images/library";
import { describeError, log } from "@/lib/log";
import type { ImageStorage } from "@/lib/storage/types";
import type { WorkQueue } from "@/lib/work/queue";
import type { Engines } from "./index";
import type { WorkProgress } from "./types";

export type GenerateInput = {
  prompt: string;
  model: ModelName;
  style: StyleName;
  ratio: Ratio;
  seed?: number;
  negativePrompt?: string;
};

export type GenerateDeps = RecordDeps & {
  engines: Pick<Engines, "engineFor">;
  requestId: string;
  /** Aborts when the caller goes away or cancels. */
  signal: AbortSignal;
  storage: ImageStorage;
  queue: WorkQueue;
  /** The app's own origin, for URLs when no CDN base is set. */
  origin: string;
  /**
   * Called when the work leaves the queue, before the engine is asked for the image: from then on the cost is being
   * spent. It may refuse (throw) when the work was cancelled while it waited.
   */
  onStart?: () => void | Promise<void>;
  /** Hears the place in line while the work waits (1 = next). */
  onQueued?: (position: number) => void;
  onProgress?: (progress: WorkProgress) => void;
};

export type GeneratedResult = {
  id: string;
  url: string;
  width: number;
  height: number;
  seed?: number;
  engine: string;
  ai: boolean;
  /** ISO 8601, or null when kept forever. */
  expiresAt: string | null;
  deleteToken: string;
};

export async function generateImage(input: GenerateInput, deps: GenerateDeps): Promise<GeneratedResult> {
  const size = MODELS[input.model].sizes[input.ratio];
  const engine = deps.engines.engineFor(input.model);
  const job = {
    prompt: input.prompt,
    styledPrompt: applyStyle(input.style, input.prompt),
    model: input.model,
    style: input.style,
    ratio: input.ratio,
    width: size.width,
    height: size.height,
    seed: input.seed,
    negativePrompt: input.negativePrompt,
    requestId: deps.requestId,
    signal: deps.signal,
    onProgress: deps.onProgress,
  };

  const image = await deps.queue.run(
    async () => {
      await deps.onStart?.();
      try {
        return await engine.generate(job);
      } catch (err) {
        if (err instanceof DomainError) throw err;
        log.error("generation failed", { request_id: deps.requestId, engine: engine.id, ...describeError(err) });
        throw new GenerationFailed("generation failed", { cause: err });
      }
    },
    deps.signal,
    deps.onQueued,
  );

  const meta = await sharp(image.png).metadata();
  if (meta.format !== "png" || meta.width !== image.width || meta.height !== image.height) {
    log.error("engine returned a malformed image", { request_id: deps.requestId, engine: engine.id });
    throw new GenerationFailed("malformed image");
  }
  const seed = image.seed ?? input.seed;
  const engineId = image.engine ?? engine.id;
  const ai = image.ai ?? engine.ai;
  const { prompt, model, style, ratio } = input;
  const params = { prompt, model, style, ratio, seed, engine: engineId, ai };
  const stored = await storeImage(
    deps.storage,
    image.png,
    deps.origin,
    { kind: "generate", params, width: image.width, height: image.height },
    deps,
  );
  return {
    id: stored.id,
    url: stored.url,
    width: image.width,
    height: image.height,
    seed: image.seed,
    engine: engineId,
    ai,
    expiresAt: stored.expiresAt,
    deleteToken: stored.deleteToken,
  };
}
