// Messages between the enhance engine and its inference workers (structured-cloned; pixel buffers transferred).
import type { PackageName } from "./package-models";

export type ModelRef = { kind: "package"; pkg: PackageName; scale: 2 | 4 } | { kind: "file"; path: string };

export type SrWorkerData = {
  /** Project root, for node_modules/@upscalerjs. */
  root: string;
  /** Where converted models are cached (DATA_DIR/models). */
  cacheDir: string;
  /** ONNX Runtime intra-op threads for this worker. */
  threads: number;
  device: "cpu" | "cuda";
};

export type SrTask =
  | { type: "info"; model: ModelRef }
  | {
      type: "tile";
      model: ModelRef;
      /** Packed RGB of the tile with its context. */
      data: Uint8Array;
      width: number;
      height: number;
      /** The interior to return, in tile input pixels. */
      crop: { x: number; y: number; w: number; h: number };
    };

export type ModelInfo = { scale: number; overlap: number; flopsPerInputPixel: number; label: string };

/** Packed RGB of the crop, upscaled. */
export type TileResult = { data: Uint8Array };

/** Pool envelope: `ready` once the worker has loaded its runtime, then one reply per job id. */
export type WorkerReply = { ready: true } | { id: number; result: unknown } | { id: number; error: string };

export function toModelKey(model: ModelRef): string {
  return model.kind === "package" ? `${model.pkg}-x${model.scale}` : `file:${model.path}`;
}
