// Runs one generation request: n images (each with its own seed), engine → checks → mask → format → durable
// storage, before any URL is handed out.
import crypto from "node:crypto";
import sharp from "sharp";
import { type ImageSize, MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";
import { DEFAULT_OUTPUT, type OutputEncoding } from "@/lib/catalog/output-formats";
import { inputNeeded } from "@/lib/catalog/route-inputs";
import { applyStyle, type StyleName } from "@/lib/catalog/styles";
import { DomainError, GenerationFailed } from "@/lib/errors";
import { composite, decodeEditImage, decodeMask, type EditInput, probeEditImage } from "@/lib/images/edit-input";
import { encodeOutput } from "@/lib/images/encode";
import { type RecordDeps, storeImage } from "@/lib/images/library";
import { describeError, log } from "@/lib/log";
import type { ImageStorage } from "@/lib/storage/types";
import type { WorkQueue } from "@/lib/work/queue";
import type { Engines } from "./index";
import { nearestRatio, sizeForImage } from "./sizing";
import type { GeneratedImage, GenerateJob, ImageEngine, WorkProgress } from "./types";

export type GenerateInput = {
  prompt: string;
  model: ModelName;
  style: StyleName;
  ratio: Ratio;
  seed?: number;
  negativePrompt?: string;
  /** How many images, 1 to 4; each is one unit and gets its own seed. */
  n?: number;
  output?: OutputEncoding;
  /** An edit, decoded by prepareEdit: the image at its output size, its mask and strength. */
  edit?: PreparedEdit;
};

export type PreparedEdit = {
  input: EditInput;
  /** The answer's ratio: the one asked for, else the published ratio nearest the output. */
  ratio: Ratio;
  /** The library image it came from (`image_id`). */
  sourceImageId?: string;
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
  /** Hears each engine call start, with how many images it makes: those images' cost is being spent. */
  onImagesStarted?: (count: number) => void;
  /** Hears the place in line while the work waits (1 = next). */
  onQueued?: (position: number) => void;
  onProgress?: (progress: WorkProgress) => void;
  /** Hears the engine's intermediate images, where it has them (see GenerateJob.onPreview). */
  onPreview?: (image: Buffer) => void;
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
  /** The stored file's bytes, in the output format: for answers that carry the image itself. */
  bytes: Buffer;
};

/**
 * The images made, in order, and how many failed (their units go back). An image whose engine call had started
 * when the caller went away is not failed but abandoned: its cost was spent, so its unit stays used.
 */
export type GeneratedBatch = { images: GeneratedResult[]; failed: number };

/**
 * Decodes an edit's inputs once the quota is taken: the header first (a pixel bomb is 413 before decoding), then
 * the image at its output size (the image's aspect where the route allows any size, the nearest fixed size
 * otherwise; an explicit ratio wins), then the mask scaled to it.
 */
export async function prepareEdit(
  upload: { image: Buffer; mask?: Buffer; strength: number; sourceImageId?: string },
  request: { model: ModelName; ratio?: Ratio },
  maxPixels: number,
  engines: Pick<Engines, "sizingFor">,
): Promise<PreparedEdit> {
  const probe = await probeEditImage(upload.image, maxPixels);
  const model = MODELS[request.model];
  const square = model.sizes["1:1"];
  const size: ImageSize = request.ratio
    ? model.sizes[request.ratio]
    : sizeForImage(engines.sizingFor(request.model, inputNeeded(upload)), probe, square.width * square.height);
  const { rgb, png } = await decodeEditImage(upload.image, size, maxPixels);
  const mask = upload.mask ? await decodeMask(upload.mask, size, maxPixels) : undefined;
  return {
    input: { png, rgb, width: size.width, height: size.height, mask, strength: upload.strength },
    ratio: request.ratio ?? nearestRatio(size),
    sourceImageId: upload.sourceImageId,
  };
}

/** Seeds per image: the caller's seed and the ones after it, else the engine's choice for the first and fresh ones. */
export function seedsFor(seed: number | undefined, n: number): (number | undefined)[] {
  return Array.from({ length: n }, (_, i) => {
    if (seed !== undefined) return (seed + i) % 2 ** 32;
    return i === 0 ? undefined : crypto.randomInt(0, 2 ** 32);
  });
}

export async function generateImages(input: GenerateInput, deps: GenerateDeps): Promise<GeneratedBatch> {
  const edit = input.edit;
  const size = edit ? { width: edit.input.width, height: edit.input.height } : MODELS[input.model].sizes[input.ratio];
  const engine = deps.engines.engineFor(input.model);
  let started: Promise<void> | undefined;
  let abandoned = 0;
  // deps.onStart once per request, whichever image leaves the queue first; onImagesStarted for each engine call.
  const startOf = (count: number) => {
    let began = false;
    return {
      begin: async () => {
        started ??= Promise.resolve(deps.onStart?.());
        await started;
        began = true;
        deps.onImagesStarted?.(count);
      },
      /** A call that failed after it began, the caller gone: its images are abandoned, not failed. */
      failed: (err: unknown) => {
        if (began && deps.signal.aborted) abandoned += count;
        throw err;
      },
    };
  };
  const n = input.n ?? 1;
  const seeds = seedsFor(input.seed, n);
  const jobFor = (seed: number | undefined, count = 1): GenerateJob => ({
    prompt: input.prompt,
    styledPrompt: applyStyle(input.style, input.prompt),
    model: input.model,
    style: input.style,
    ratio: edit?.ratio ?? input.ratio,
    width: size.width,
    height: size.height,
    seed,
    ...(count > 1 && { count }),
    negativePrompt: input.negativePrompt,
    input: edit?.input,
    requestId: deps.requestId,
    signal: deps.signal,
    onProgress: deps.onProgress,
    onPreview: deps.onPreview,
  });
  const store = (job: GenerateJob, image: GeneratedImage) => storeOne(engine, input, deps, job, image);

  // A route that batches makes all n in one call (per server); what it did not make is asked for one at a time.
  const batch = n > 1 ? Math.min(n, engine.batchSize?.(jobFor(seeds[0], n)) ?? 1) : 1;
  const settled: PromiseSettledResult<GeneratedResult>[] = [];
  let singles = seeds;
  if (batch > 1) {
    const job = jobFor(seeds[0], n);
    const start = startOf(n);
    const made = await runEngine(engine, deps, job, start.begin)
      .catch(start.failed)
      .then(
        (first) => [first, ...(first.more ?? [])],
        (err: unknown) => {
          settled.push({ status: "rejected", reason: err });
          return [];
        },
      );
    settled.push(...(await Promise.allSettled(made.map((image) => store(job, image)))));
    const got = new Set(made.map((image) => image.seed));
    // The caller's seeds that the batch did not cover; without a caller's seed, fresh ones.
    singles = made.length === 0 ? [] : seeds.filter((seed) => seed === undefined || !got.has(seed));
    singles = singles.slice(0, Math.max(0, n - made.length));
  }
  settled.push(
    ...(await Promise.allSettled(
      singles.map(async (seed) => {
        const job = jobFor(seed);
        const start = startOf(1);
        return store(job, await runEngine(engine, deps, job, start.begin).catch(start.failed));
      }),
    )),
  );
  const images = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (images.length === 0) throw (settled.find((s) => s.status === "rejected") as PromiseRejectedResult).reason;
  const failed = n - images.length - abandoned;
  if (failed > 0)
    log.warn("some images of a request failed", { request_id: deps.requestId, failed, made: images.length });
  return { images, failed };
}

/** One engine call through the work queue: the images, or the failure as a domain error. */
function runEngine(
  engine: ImageEngine,
  deps: GenerateDeps,
  job: GenerateJob,
  onStart: () => Promise<void>,
): Promise<GeneratedImage> {
  return deps.queue.run(
    async () => {
      await onStart();
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
}

/** Checks one image the engine made, applies the mask and the format, and stores it in the library. */
async function storeOne(
  engine: ImageEngine,
  input: GenerateInput,
  deps: GenerateDeps,
  job: GenerateJob,
  image: GeneratedImage,
): Promise<GeneratedResult> {
  const meta = await sharp(image.png).metadata();
  if (meta.format !== "png" || meta.width !== image.width || meta.height !== image.height) {
    log.error("engine returned a malformed image", { request_id: deps.requestId, engine: engine.id });
    throw new GenerationFailed("malformed image");
  }
  const output = input.output ?? DEFAULT_OUTPUT;
  const png = job.input?.mask ? await keepMasked(image.png, job.input) : image.png;
  const bytes = await encodeOutput(png, output);
  const seed = image.seed ?? (job.count ? undefined : job.seed);
  const engineId = image.engine ?? engine.id;
  const ai = image.ai ?? engine.ai;
  const { prompt, model, style } = input;
  const params = {
    prompt,
    model,
    style,
    ratio: job.ratio,
    seed,
    engine: engineId,
    ai,
    ...(job.input && { strength: job.input.strength, masked: Boolean(job.input.mask) }),
    ...(output.format !== "png" && { format: output.format }),
  };
  const stored = await storeImage(
    deps.storage,
    bytes,
    deps.origin,
    {
      kind: "generate",
      params,
      width: image.width,
      height: image.height,
      format: output.format,
      sourceImageId: input.edit?.sourceImageId,
    },
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
    bytes,
  };
}

/** The engine's image where the mask says change, the caller's image where it says keep. */
async function keepMasked(png: Buffer, input: EditInput): Promise<Buffer> {
  const result = await sharp(png).removeAlpha().raw().toBuffer();
  const mixed = composite(input.rgb, result, input.mask);
  return sharp(mixed, { raw: { width: input.width, height: input.height, channels: 3 } })
    .png({ compressionLevel: 3, adaptiveFiltering: false })
    .toBuffer();
}
