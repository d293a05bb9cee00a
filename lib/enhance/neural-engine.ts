// Neural enhancement: super-resolution on the worker pool, blended with a lanczos3 resize by strength.
import sharp from "sharp";
import { blendOver } from "./blend";
import type { ModelRef } from "./neural/protocol";
import type { Upscaler } from "./neural/upscale";
import type { EnhanceEngine, EnhanceJob, ModelChoice, RawImage } from "./types";

/**
 * The strength mapping (README "Enhancement engine"): with L = lanczos3(input → target) and
 * N = sharpen(σ 0.8)(lanczos3(SR(input) → target)), out = (1 − s)·L + s·N per RGB byte, alpha = lanczos3 alpha.
 * s = 0 is exactly L, and the distance from L grows linearly with s.
 */
export const DETAIL_SHARPEN_SIGMA = 0.8;

const PACKAGES = { fast: "esrgan-slim", quality: "esrgan-medium" } as const;

export type NeuralEngineOptions = {
  upscaler: Upscaler;
  /** ENHANCE_MODEL_PATH: an operator ONNX model that serves both fast and quality. */
  modelPath?: string;
};

/** The packaged models come in 2× and 4×: the smallest one that reaches the target, then lanczos3 to the exact size. */
export function chooseModel(choice: ModelChoice, effectiveScale: number, modelPath?: string): ModelRef {
  if (modelPath) return { kind: "file", path: modelPath };
  return { kind: "package", pkg: PACKAGES[choice], scale: effectiveScale <= 2 ? 2 : 4 };
}

export function createNeuralEngine(opts: NeuralEngineOptions): EnhanceEngine {
  return {
    id: "onnx",
    ai: true,
    async enhance(job) {
      const base = await resizeLanczos(job.image, job.width, job.height);
      if (job.strength <= 0) return { ...base, engine: "lanczos3" };
      const effective = job.width / job.image.width;
      let detail: Buffer;
      let engine: string;
      if (effective <= 1) {
        // Huge inputs are not upscaled at all (the 4096 px cap), so there is nothing for the network to add.
        detail = await sharpenTo(base, job.width, job.height);
        engine = "lanczos3+sharpen";
      } else {
        const model = chooseModel(job.model, effective, opts.modelPath);
        const sr = await opts.upscaler.upscale(model, job.image, { signal: job.signal });
        detail = await sharpenTo(sr, job.width, job.height);
        engine = `onnx:${(await opts.upscaler.describe(model)).label}`;
      }
      job.signal.throwIfAborted();
      return { ...base, data: blendOver(base, detail, job.strength), engine };
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
