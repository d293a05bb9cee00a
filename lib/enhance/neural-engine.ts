// Neural enhancement: super-resolution on the worker pool, blended with a lanczos3 resize by strength in bands across
// the workers and encoded there too (finish.ts).
import type { EnhancePackage } from "../catalog/enhance-modes";
import { resizeLanczos } from "./finish";
import type { ModelRef, Precision } from "./neural/protocol";
import { bufferOf, toShared } from "./neural/shared-memory";
import type { Upscaler } from "./neural/upscale";
import { type EnhanceEngine, type ModelChoice, type RawImage, timed } from "./types";

/**
 * The strength mapping is finish.ts's (L = lanczos3 base, N = sharpened network output, out = (1 − s)·L + s·N);
 * the network sees the input itself, or its lanczos3 reduction to target / native scale when the target (after
 * the 4096 px cap) needs less than the model's native scale: the network's cost follows the output, not the upload.
 */

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
      const { width, height, signal, profile, strength, output } = job;
      // One group per job: the pool serves jobs' tiles in turn, so a big image does not hold back small ones.
      const group = Symbol("enhance job");
      // The one copy between the main thread and the workers on the way in: the upload's pixels into shared memory.
      const image: RawImage = { ...job.image, data: bufferOf(await toShared(job.image.data)) };
      const effective = width / image.width;
      let detailSource = image;
      let engine = "lanczos3";
      if (strength > 0 && effective <= 1) {
        // Huge inputs are not upscaled at all (the 4096 px cap), so there is nothing for the network to add.
        engine = "lanczos3+sharpen";
      } else if (strength > 0) {
        const model = chooseModel(job.model, effective, opts.modelPath, opts.precisionOf);
        const info = await opts.upscaler.describe(model);
        const reduced = planNetworkInput(image, job, info.scale);
        const input = reduced
          ? await timed(profile, "prescale", () => resizeLanczos(image, reduced.width, reduced.height))
          : image;
        signal.throwIfAborted();
        const onTaskDone = (done: number, total: number) =>
          job.onProgress?.({ fraction: done / total, stage: `enhancing: tile ${done} of ${total}` });
        detailSource = await timed(profile, "tiles on the workers (wall)", () =>
          opts.upscaler.upscale(model, input, { signal, group, onTaskDone, profile }),
        );
        engine = `onnx:${info.label}`;
      }
      signal.throwIfAborted();
      const out = await timed(profile, "finish on the workers: sharpen, base, blend in bands, encode (wall)", () =>
        opts.upscaler.finish(image, detailSource, { width, height, strength, output }, { signal, group, profile }),
      );
      return { ...out, engine };
    },
  };
}
