// One ONNX Runtime session for a super-resolution model, and the per-tile run (HWC uint8 ↔ NCHW float).
// Worker-side only: session creation and run() are synchronous on the calling thread in onnxruntime-node.
import fs from "node:fs";
import path from "node:path";
import type * as Ort from "onnxruntime-node";
import { describeError, log } from "../../log";
import { int8WeightBits } from "../precision";
import { ensureInt8ModelApart } from "./make-int8";
import { readOnnxMetadata } from "./onnx-metadata";
import { ensureConvertedModel } from "./package-models";
import type { ModelInfo, ModelRef, Precision, SrWorkerData } from "./protocol";

/** Context for models without our metadata; the usual Real-ESRGAN tile_pad is 10. */
const DEFAULT_OVERLAP = 16;

export type SrSession = {
  info: ModelInfo;
  /** Frees the session's native memory (weights, arena); the session is unusable afterwards. */
  release: () => Promise<void>;
  run: (
    data: Uint8Array,
    width: number,
    height: number,
    crop: { x: number; y: number; w: number; h: number },
    timings?: TileTimings,
  ) => Promise<Uint8Array>;
};

/** Where a tile's time goes in the worker, in ms: pixels to the float tensor, the network, back to pixels. */
export type TileTimings = { toTensor: number; network: number; toPixels: number };

/**
 * The session for a model. An int8 model that cannot be made, loaded or run here (an old CPU, a runtime without the
 * int8 kernels, a damaged cache file) gives way to the fp32 one, with one log line: never a failed request.
 */
export async function openSrSession(ort: typeof Ort, model: ModelRef, env: SrWorkerData): Promise<SrSession> {
  if (model.kind === "package" && model.precision === "int8") {
    let session: SrSession | undefined;
    try {
      // Made in a child process on first use, so calibration's peak leaves with it (make-int8.ts).
      const file = await ensureInt8ModelApart({
        cacheDir: env.cacheDir,
        root: env.root,
        threads: env.threads,
        pkg: model.pkg,
        scale: model.scale,
        bits: env.int8Weights?.bits ?? int8WeightBits(),
        weightType: env.int8Weights?.type ?? "int8",
      });
      session = await openFile(ort, file, model, env, "int8");
      // A probe run: a kernel missing at run time fails here, not in a request.
      await session.run(new Uint8Array(24 * 32 * 3).fill(128), 32, 24, { x: 0, y: 0, w: 32, h: 24 });
      return session;
    } catch (err) {
      await session?.release().catch(() => {});
      log.warn("int8 enhance model unavailable in this worker; running it in fp32", {
        model: `${model.pkg}-x${model.scale}`,
        ...describeError(err),
      });
      return openSrSession(ort, { ...model, precision: "fp32" }, env);
    }
  }
  const file =
    model.kind === "package" ? ensureConvertedModel(env.cacheDir, env.root, model.pkg, model.scale) : model.path;
  return openFile(ort, file, model, env, "fp32");
}

/** The ORT session for a model file's bytes, checked to take one NCHW RGB input of any size and give one output. */
async function createSession(ort: typeof Ort, bytes: Buffer, file: string, env: SrWorkerData) {
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: env.device === "cuda" ? ["cuda", "cpu"] : ["cpu"],
    intraOpNumThreads: env.threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    // "all" enables ORT's NCHWc conv kernels: 1.35× faster than "extended" on these models.
    graphOptimizationLevel: "all",
    // The arena keeps the peak tile working set; without it fragmentation raised peak RSS (390 → 690 MB).
    enableCpuMemArena: true,
    enableMemPattern: true,
    // Spinning idle threads would burn cores the server shares with everything else.
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  if (session.inputNames.length !== 1 || session.outputNames.length !== 1) {
    throw new Error(
      `a super-resolution model needs 1 input and 1 output; ${file} has ${session.inputNames.length} and ${session.outputNames.length}`,
    );
  }
  const shape = (session.inputMetadata[0] as { shape?: (number | string)[] }).shape;
  if (shape && (shape.length !== 4 || (typeof shape[1] === "number" && shape[1] !== 3))) {
    throw new Error(`the model's input must be NCHW RGB, got [${shape.join(",")}]`);
  }
  if (shape && (typeof shape[2] === "number" || typeof shape[3] === "number")) {
    throw new Error("models with a fixed input size are not supported: export with dynamic height and width axes");
  }
  return session;
}

type RegionOutput = { data: Float32Array; dims: readonly number[] };
type RunRegion = (data: Uint8Array, width: number, height: number, timings?: TileTimings) => Promise<RegionOutput>;

/** Runs the network on packed RGB pixels: HWC → CHW and /255 per tile, so no full-image float copy ever exists. */
function regionRunner(ort: typeof Ort, session: Ort.InferenceSession): RunRegion {
  const [inputName] = session.inputNames;
  const [outputName] = session.outputNames;
  return async (data, width, height, timings) => {
    const t0 = performance.now();
    const plane = width * height;
    const input = new Float32Array(3 * plane);
    for (let i = 0, s = 0; i < plane; i++, s += 3) {
      input[i] = data[s] / 255;
      input[i + plane] = data[s + 1] / 255;
      input[i + 2 * plane] = data[s + 2] / 255;
    }
    const t1 = performance.now();
    const result = await session.run({ [inputName]: new ort.Tensor("float32", input, [1, 3, height, width]) });
    if (timings) {
      timings.toTensor += t1 - t0;
      timings.network += performance.now() - t1;
    }
    const out = result[outputName];
    return { data: out.data as Float32Array, dims: out.dims };
  };
}

/** The model's scale from its metadata or, for foreign models that rarely say it, a small probe run. */
async function scaleOf(runRegion: RunRegion, metadata: Record<string, string>): Promise<number> {
  const scale = Number(metadata.scale ?? 0);
  if (scale) return scale;
  const probe = await runRegion(new Uint8Array(24 * 32 * 3).fill(128), 32, 24);
  const [, c, h, w] = probe.dims;
  const probed = h / 24;
  if (probe.dims.length !== 4 || c !== 3 || w / 32 !== probed || !Number.isInteger(probed) || probed < 1) {
    throw new Error(`cannot infer the model's scale from its output [${probe.dims.join(",")}] for a 32×24 input`);
  }
  return probed;
}

/** The crop of the network's CHW float output (scale × the region) as packed RGB bytes, rounded and clamped. */
function cropToPixels(
  out: RegionOutput,
  width: number,
  height: number,
  scale: number,
  crop: { x: number; y: number; w: number; h: number },
): Uint8Array {
  const ow = width * scale;
  if (out.dims[2] !== height * scale || out.dims[3] !== ow)
    throw new Error(`unexpected output [${out.dims.join(",")}] for ${width}×${height}`);
  const o = out.data;
  const oplane = ow * height * scale;
  const cw = crop.w * scale;
  const ch = crop.h * scale;
  const pixels = new Uint8Array(cw * ch * 3);
  for (let y = 0, d = 0; y < ch; y++) {
    let s = (crop.y * scale + y) * ow + crop.x * scale;
    for (let x = 0; x < cw; x++, s++, d += 3) {
      // Uint8Array assignment truncates (and wraps), so round and clamp here.
      pixels[d] = Math.min(255, Math.max(0, o[s] * 255 + 0.5));
      pixels[d + 1] = Math.min(255, Math.max(0, o[s + oplane] * 255 + 0.5));
      pixels[d + 2] = Math.min(255, Math.max(0, o[s + 2 * oplane] * 255 + 0.5));
    }
  }
  return pixels;
}

async function openFile(
  ort: typeof Ort,
  file: string,
  model: ModelRef,
  env: SrWorkerData,
  precision: Precision,
): Promise<SrSession> {
  const bytes = fs.readFileSync(/*turbopackIgnore: true*/ file);
  const metadata = readOnnxMetadata(bytes);
  const session = await createSession(ort, bytes, file, env);
  const runRegion = regionRunner(ort, session);
  const scale = await scaleOf(runRegion, metadata);
  const info: ModelInfo = {
    scale,
    overlap: metadata.receptive_radius ? Number(metadata.receptive_radius) : DEFAULT_OVERLAP,
    flopsPerInputPixel: Number(metadata.flops_per_input_pixel ?? 0),
    label:
      model.kind === "package"
        ? `${model.pkg}-x${model.scale}${precision === "int8" ? "-int8" : ""}`
        : path.basename(model.path),
    precision,
  };
  return {
    info,
    release: () => session.release(),
    async run(data, width, height, crop, timings) {
      const out = await runRegion(data, width, height, timings);
      const t0 = performance.now();
      const pixels = cropToPixels(out, width, height, scale, crop);
      if (timings) timings.toPixels += performance.now() - t0;
      return pixels;
    },
  };
}
