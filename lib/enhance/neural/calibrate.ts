// The int8 variants of the embedded models: the project's own conversion, calibrated on the photos in
// assets/photos/calibration, quantized to QDQ (quantize.ts) and cached next to the fp32 conversions.
// Worker-side code (loaded by tsx outside Next's bundle), so relative imports only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type * as Ort from "onnxruntime-node";
import sharp from "sharp";
import { int8WeightBits } from "../precision";
import { buildLayersGraph, CONVERTER_VERSION, type LayersModelJson } from "./convert-layers";
import { encodeModel, type OnnxModel } from "./onnx-proto";
import { type PackageName, readPackageVersion, resolvePackageDir } from "./package-models";
import { quantizedTensors, quantizeModel, type Range, withTensorOutputs } from "./quantize";

/** Bumped whenever calibration or quantization changes, so cached int8 models are redone. */
export const QUANTIZER_VERSION = "2";
/** Calibration tiles: small enough that every activation of the medium model fits in memory at once. */
const CALIBRATION_TILE = 96;
/**
 * Each activation's range holds this percentile of its calibration values (the rest split between the two ends, clipped):
 * a min-max range is stretched by a few outliers, and coarser steps everywhere cost more than the clipped few.
 * Measured on the held-out photos (quality 2×, the most layers): min-max lost 0.23 dB against fp32 on every
 * calibration tile, 99.999 0.05 dB, and 99.99 clipped the astronaut's highlights (0.29 dB on that photo).
 */
export const CALIBRATION_PERCENTILE = 99.999;
const HISTOGRAM_BINS = 4096;

export function int8ModelPath(
  cacheDir: string,
  root: string,
  pkg: PackageName,
  scale: number,
  bits: 7 | 8,
  weightType: "int8" | "uint8" = "int8",
): string {
  const w = `${weightType === "int8" ? "s" : "u"}${bits}`;
  return path.join(
    /*turbopackIgnore: true*/ cacheDir,
    `${pkg}-${readPackageVersion(root, pkg)}-x${scale}-v${CONVERTER_VERSION}-int8${w}-q${QUANTIZER_VERSION}.onnx`,
  );
}

/** The fp32 graph the int8 one is made from: concats stay whole, so each 1×1 fusion conv is one QLinearConv. */
export function buildFloatGraph(root: string, pkg: PackageName, scale: number): OnnxModel {
  const dir = path.join(/*turbopackIgnore: true*/ resolvePackageDir(root, pkg), "models", `x${scale}`);
  const json = JSON.parse(
    fs.readFileSync(/*turbopackIgnore: true*/ path.join(dir, "model.json"), "utf8"),
  ) as LayersModelJson;
  const shards = json.weightsManifest.flatMap((g) =>
    g.paths.map((p) => fs.readFileSync(/*turbopackIgnore: true*/ path.join(dir, p))),
  );
  const version = readPackageVersion(root, pkg);
  return buildLayersGraph(json, shards, {
    splitConcat: false,
    metadata: { source: `@upscalerjs/${pkg}@${version}/x${scale}`, license: "MIT" },
  }).model;
}

/** Calibration tiles as NCHW float in [0, 1]: every whole tile of each calibration photo, in file-name order. */
export async function loadCalibrationTiles(root: string): Promise<{ data: Float32Array; size: number }[]> {
  const dir = path.join(/*turbopackIgnore: true*/ root, "assets", "photos", "calibration");
  const files = fs
    .readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((f) => f.endsWith(".png"))
    .sort();
  if (files.length === 0) throw new Error(`no calibration photos in ${dir}`);
  const tiles: { data: Float32Array; size: number }[] = [];
  const n = CALIBRATION_TILE;
  for (const f of files) {
    const { data, info } = await sharp(path.join(/*turbopackIgnore: true*/ dir, f))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const cols = Math.floor(info.width / n);
    const rows = Math.floor(info.height / n);
    for (let k = 0; k < cols * rows; k++) {
      const x0 = (k % cols) * n;
      const y0 = Math.floor(k / cols) * n;
      const t = new Float32Array(3 * n * n);
      for (let y = 0; y < n; y++)
        for (let x = 0; x < n; x++) {
          const s = ((y0 + y) * info.width + x0 + x) * 3;
          for (let c = 0; c < 3; c++) t[c * n * n + y * n + x] = data[s + c] / 255;
        }
      tiles.push({ data: t, size: n });
    }
  }
  return tiles;
}

/**
 * The range of every activation the quantizer needs, over the calibration tiles (fp32 runs): a first pass finds
 * each one's min and max, a second fills a histogram over them, and the range keeps CALIBRATION_PERCENTILE of it.
 */
export async function calibrate(
  ort: typeof Ort,
  model: OnnxModel,
  tiles: { data: Float32Array; size: number }[],
  threads: number,
): Promise<Map<string, Range>> {
  const tensors = quantizedTensors(model).filter((t) => !model.inputs.some((i) => i.name === t));
  const session = await ort.InferenceSession.create(encodeModel(withTensorOutputs(model, tensors)), {
    intraOpNumThreads: threads,
    graphOptimizationLevel: "all",
    // Every activation is an output here, held until read: an arena would keep that peak for the session's life.
    enableCpuMemArena: false,
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  });
  const stats = tensors.map((t) => ({ t, min: 0, max: 0, counts: new Float64Array(HISTOGRAM_BINS) }));
  const eachActivation = async (visit: (s: (typeof stats)[number], v: Float32Array) => void) => {
    for (const tile of tiles) {
      const input = new ort.Tensor("float32", tile.data, [1, 3, tile.size, tile.size]);
      const out = await session.run({ [model.inputs[0].name]: input }, tensors);
      for (const s of stats) visit(s, out[s.t].data as Float32Array);
    }
  };
  try {
    // Both ranges include 0, so padding and ReLU stay exact (activationParams).
    await eachActivation((s, v) => {
      for (let i = 0; i < v.length; i++) {
        if (v[i] < s.min) s.min = v[i];
        if (v[i] > s.max) s.max = v[i];
      }
    });
    await eachActivation((s, v) => {
      const per = HISTOGRAM_BINS / (s.max - s.min || 1);
      for (let i = 0; i < v.length; i++) s.counts[Math.min(HISTOGRAM_BINS - 1, Math.floor((v[i] - s.min) * per))]++;
    });
  } finally {
    await session.release();
  }
  return new Map(stats.map((s) => [s.t, percentileRange(s.counts, s.min, s.max)]));
}

/** The range of a histogram over [min, max] that leaves out (100 − CALIBRATION_PERCENTILE) % of it, half at each end. */
export function percentileRange(counts: Float64Array, min: number, max: number): Range {
  const total = counts.reduce((a, b) => a + b, 0);
  const cut = (total * (1 - CALIBRATION_PERCENTILE / 100)) / 2;
  const width = (max - min) / counts.length;
  let lo = 0;
  for (let below = 0; lo < counts.length - 1 && below + counts[lo] <= cut; lo++) below += counts[lo];
  let hi = counts.length - 1;
  for (let above = 0; hi > lo && above + counts[hi] <= cut; hi--) above += counts[hi];
  return { min: min + lo * width, max: min + (hi + 1) * width };
}

/** Converts, calibrates and quantizes on first use, like ensureConvertedModel: tmp + rename, so racers agree. */
export async function ensureInt8Model(
  ort: typeof Ort,
  opts: {
    cacheDir: string;
    root: string;
    pkg: PackageName;
    scale: number;
    threads: number;
    bits?: 7 | 8;
    weightType?: "int8" | "uint8";
  },
): Promise<string> {
  const bits = opts.bits ?? int8WeightBits();
  const weightType = opts.weightType ?? "int8";
  const file = int8ModelPath(opts.cacheDir, opts.root, opts.pkg, opts.scale, bits, weightType);
  if (fs.existsSync(/*turbopackIgnore: true*/ file)) return file;
  const model = buildFloatGraph(opts.root, opts.pkg, opts.scale);
  const ranges = await calibrate(ort, model, await loadCalibrationTiles(opts.root), opts.threads);
  const onnx = encodeModel(quantizeModel(model, ranges, { weightBits: bits, weightType }));
  fs.mkdirSync(/*turbopackIgnore: true*/ opts.cacheDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${os.hostname()}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(/*turbopackIgnore: true*/ tmp, onnx);
  fs.renameSync(/*turbopackIgnore: true*/ tmp, file);
  return file;
}
