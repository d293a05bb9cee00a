import type { EnhanceModeName } from "@/lib/catalog/enhance-modes"; // "fast" | "quality" | "faces" | "creative"
import type { WorkProgress } from "@/lib/engines/types";

/** One enhancement asked of one route. */
export type EnhanceRouteJob = {
  /** The input as PNG: EXIF orientation applied, metadata stripped. */
  image: Buffer;
  width: number;
  height: number;
  /** The exact output size the answer must have (scale × input, capped at 4,096 px on the long side). */
  targetWidth: number;
  targetHeight: number;
  scale: 2 | 4;
  mode: EnhanceModeName;
  /** 0..1, the contract's meaning for the mode (faces: restorer weight; creative: how far it may invent). */
  strength: number;
  /** Filtered already; for creative and stability:conservative. */
  prompt?: string;
  /** For faces: which restorer (ENHANCE_FACE_RESTORER, default gfpgan). */
  faceRestorer: "gfpgan" | "codeformer";
  requestId: string;
  signal: AbortSignal;
  onProgress?: (progress: WorkProgress) => void;
};

/** What a route gives back: encoded image bytes at whatever size the engine made; the caller checks, resizes to
 * the target exactly, blends for strength where the mode is faithful, encodes and strips metadata. */
export type EnhanceRouteOutput = { image: Buffer };

export interface EnhanceRoute {
  /** The route as configured and reported, e.g. "a1111:R-ESRGAN 4x+", "stability:fast". */
  readonly id: string;
  readonly ai: boolean;
  readonly generative: boolean;
  run(job: EnhanceRouteJob): Promise<EnhanceRouteOutput>;
  /**
   * Why the route cannot take work now (ejected: a name its server lacks, every server out), or null; for `mode`
   * when it is out for one mode only (a ComfyUI server without the face-restore nodes, for faces).
   */
  outReason?(mode?: EnhanceModeName): string | null;
}
