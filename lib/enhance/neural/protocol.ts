// Messages between the enhance engine and its inference workers. Pixels live in SharedArrayBuffers the workers read
// and write in place, so the main thread never copies a tile, blends a pixel or encodes an image.
import type { OutputEncoding } from "../../catalog/output-formats";
import type { Band, FinishTimings } from "../finish";
import type { PackageName } from "./package-models";
import type { Tile } from "./tiles";

export type Precision = "int8" | "fp32";

/** A packaged model at a precision (int8 falls back to fp32 in a worker that cannot run it), or an operator's file. */
export type ModelRef =
  | { kind: "package"; pkg: PackageName; scale: 2 | 4; precision: Precision }
  | { kind: "file"; path: string };

export type SrWorkerData = {
  /** Project root, for node_modules/@upscalerjs. */
  root: string;
  /** Where converted models are cached (DATA_DIR/models). */
  cacheDir: string;
  /** ONNX Runtime intra-op threads for this worker. */
  threads: number;
  device: "cpu" | "cuda";
  /** ONNX sessions a worker keeps open; the least recently used one is released beyond this. Default 2. */
  maxSessions?: number;
  /**
   * The int8 models' weights: by default 8 or 7 bits as the CPU needs (precision.ts), int8. The held-out measurement
   * (scripts/measure-int8.ts) sets it to measure the other row of the precision table on the same CPU.
   */
  int8Weights?: { bits: 7 | 8; type: "int8" | "uint8" };
};

/** Interleaved 8-bit pixels in shared memory. */
export type SharedImage = { data: SharedArrayBuffer; width: number; height: number; channels: number };

export type SrTask =
  | { type: "info"; model: ModelRef }
  | {
      type: "tile";
      model: ModelRef;
      input: SharedImage;
      /** Packed RGB at the model's scale; the worker writes the tile's upscaled interior into it. */
      output: SharedImage;
      tile: Tile;
    }
  | {
      type: "finish";
      /** The image as uploaded (or pre-reduced), the network's output (or the input itself), and the target. */
      input: SharedImage;
      detailSource: SharedImage;
      strength: number;
      /** Target size, the input's channels: the worker writes the blended pixels of `band` into it. */
      out: SharedImage;
      /** The rows this job finishes (finish.ts: each worker a band, the bands together the whole target). */
      band: Band;
    }
  | {
      type: "encode";
      /** The finished pixels; the encoded bytes come back transferred, not copied. */
      out: SharedImage;
      output: OutputEncoding;
    }
  | { type: "sessions" };

export type ModelInfo = {
  scale: number;
  overlap: number;
  flopsPerInputPixel: number;
  label: string;
  /** What the worker runs: int8 only when asked for and its session opened. */
  precision: Precision;
};

/** A tile job's answer: its worker time in ms, by stage (cut out, to tensor, network, to pixels, placed). */
export type TileProfile = { cut: number; toTensor: number; network: number; toPixels: number; place: number };

/** A finish or encode job's answer: its worker time in ms by stage, and an encode's bytes. */
export type FinishResult = { encoded?: Uint8Array; timings: FinishTimings };

/** Pool envelope: `ready` once the worker has loaded its runtime, then one reply per job id. */
export type WorkerReply = { ready: true } | { id: number; result: unknown } | { id: number; error: string };

export function toModelKey(model: ModelRef): string {
  if (model.kind === "file") return `file:${model.path}`;
  return `${model.pkg}-x${model.scale}${model.precision === "int8" ? "-int8" : ""}`;
}
