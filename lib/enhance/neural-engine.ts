// Neural enhancement: super-resolution on the worker pool, blended with a lanczos3 resize by strength.
import sharp from "sharp";
import type { EnhancePackage } from "../catalog/enhance-modes";
import type { ModelRef, Precision } from "./neural/protocol";
import type { Upscaler } from "./neural/upscale";
import { type EnhanceEngine, type ModelChoice, type RawImage, timed } from "./types";

/**
 * The strength mapping (docs/enhancement.md): with L = lanczos3(input → target) and
 * N = sharpen(σ 0.8)(lanczos3(SR(input′) → target)), out = (1 − s)·L + s·N per RGB byte, alpha = lanczos3 alpha.
 * input′ is the input itself, or its lanczos3 reduction to target / native scale when the target (after the
 * 4096 px cap) needs less than the model's native scale: the network's cost follows the output, not the upload.
 * s = 0 is exactly L, and the distance from L grows linearly with s.
 */
export const DETAIL_SHARPEN_SIGMA = 0.8;

/**
 * The input is reduced before the network only when that saves at least ~10 % of its pixels: a resample costs a
 * little sharpness, and a few percent of compute is not worth it.
 */
export const MIN_PRESCALE_SAVING = 0.95;

const PACKAGES = { fast: "esrgan-slim", quality: "esrgan-medium" } as const;

export type NeuralEngineOptions = {
  upscaler: Upscaler;
  /** ENHANCE_MODEL_PATH: an operator ONNX model that serves both fast and quality (run as it is: fp32 or its own int8). */
  modelPath?: string;
  /** The precision of each packaged model (precision.ts); fp32 when not given. */
  precisionOf?: (pkg: EnhancePackage, scale: 2 | 4) => Precision;
};

/** The packaged models come in 2× and 4×: the smallest one that reaches the target, then lanczos3 to the exact size. */
export function chooseModel(
  choice: ModelChoice,
  effectiveScale: number,
  modelPath?: string,
  precisionOf: NeuralEngineOptions["precisionOf"] = () => "fp32",
): ModelRef {
  if (modelPath) return { kind: "file", path: modelPath };
  const pkg = PACKAGES[choice];
  const scale = effectiveScale <= 2 ? 2 : 4;
  return { kind: "package", pkg, scale, precision: precisionOf(pkg, scale) };
}

/**
 * The size the network should see so that its output (input × native scale) just covers the target; undefined
 * when the input itself is already (about) that size.
 */
export function planNetworkInput(
  input: { width: number; height: number },
  target: { width: number; height: number },
  nativeScale: number,
): { width: number; height: number } | undefined {
  const factor = target.width / input.width / nativeScale;
  if (factor >= MIN_PRESCALE_SAVING) return undefined;
  return {
    width: Math.max(1, Math.ceil(target.width / nativeScale)),
    height: Math.max(1, Math.ceil(target.height / nativeScale)),
  };
}

export function createNeuralEngine(opts: NeuralEngineOptions): EnhanceEngine {
  return {
    id: "onnx",
    ai: true,
    async enhance(job) {
      const { width, height, signal, profile } = job;
      if (job.strength <= 0) return { ...(await resizeLanczos(job.image, width, height)), engine: "lanczos3" };
      // One group per job: the pool serves jobs' tiles in turn, so a big image does not hold back small ones.
      const group = Symbol("enhance job");
      const effective = width / job.image.width;
      let detail: Buffer;
      let engine: string;
      if (effective <= 1) {
        // Huge inputs are not upscaled at all (the 4096 px cap), so there is nothing for the network to add.
        detail = await sharpenTo(job.image, width, height);
        engine = "lanczos3+sharpen";
      } else {
        const model = chooseModel(job.model, effective, opts.modelPath, opts.precisionOf);
        const info = await opts.upscaler.describe(model);
        const reduced = planNetworkInput(job.image, job, info.scale);
        const input = reduced
          ? await timed(profile, "prescale", () => resizeLanczos(job.image, reduced.width, reduced.height))
          : job.image;
        signal.throwIfAborted();
        const onTaskDone = (done: number, total: number) =>
          job.onProgress?.({ fraction: done / total, stage: `enhancing: tile ${done} of ${total}` });
        const sr = await timed(profile, "tiles on the workers (wall)", () =>
          opts.upscaler.upscale(model, input, { signal, group, onTaskDone, profile }),
        );
        detail = await timed(profile, "resize + sharpen of the network output", () => sharpenTo(sr, width, height));
        engine = `onnx:${info.label}`;
      }
      // The base is made last, so it is not held in memory while the network runs.
      const base = await timed(profile, "lanczos3 base", () => resizeLanczos(job.image, width, height));
      signal.throwIfAborted();
      const data = await timed(profile, "strength blend (workers, wall)", () =>
        opts.upscaler.blend(base, detail, job.strength, { signal, group }),
      );
      const { output } = job;
      if (!output) return { ...base, data, engine };
      const encoded = await timed(profile, `${output.format.toUpperCase()} encode (worker, wall)`, () =>
        opts.upscaler.encode({ ...base, data }, output, { signal, group }),
      );
      return { ...base, data, engine, encoded };
    },
  };
}

async function resizeLanczos(image: RawImage, width: number, height: number): Promise<RawImage> {
  const { data, info } = await sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels },
  })
    .resize(width, height, { kernel: "lanczos3", fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: image.channels };
}

/** RGB only: lanczos3 to the target when the model's scale overshoots it, then the light detail sharpen. */
async function sharpenTo(image: RawImage, width: number, height: number): Promise<Buffer> {
  let img = sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
  if (image.channels === 4) img = img.removeAlpha();
  if (image.width !== width || image.height !== height)
    img = img.resize(width, height, { kernel: "lanczos3", fit: "fill" });
  // sharp's sharpen works on lightness with a flat/jagged split (m1 = 1 in flat areas, m2 = 2 on edges): detail-aware.
  return img.sharpen({ sigma: DETAIL_SHARPEN_SIGMA }).raw().toBuffer();
}
