// The enhancement engine interface: the neural engine (ONNX Runtime workers), with sharp as the fallback.
import type { EnhanceMode } from "../catalog/enhance-modes";
import type { OutputEncoding } from "../catalog/output-formats";

/** Decoded pixels, orientation already applied. */
export type RawImage = {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
};

export type ModelChoice = EnhanceMode;

export type EnhanceJob = {
  image: RawImage;
  /** Target size, already capped at 4096 px on the long side. */
  width: number;
  height: number;
  /** 0 = faithful lanczos3 resize, 1 = strongest enhancement. */
  strength: number;
  model: ModelChoice;
  signal: AbortSignal;
  /** Collects where the time goes, for the bench's profile. */
  profile?: Profile;
  /** The format the caller stores: an engine that can encode off the main thread returns `encoded` in it. */
  output?: OutputEncoding;
  /** Hears the network's progress: tiles done of all tiles. */
  onProgress?: (progress: { fraction: number | null; stage: string }) => void;
};

/** Where an enhancement's time goes: stage → ms (a few entries are other units, named so). */
export type Profile = Map<string, number>;

export function addTime(profile: Profile | undefined, stage: string, ms: number) {
  profile?.set(stage, (profile.get(stage) ?? 0) + ms);
}

/** Runs `fn`, adding its wall time to `stage`. */
export async function timed<T>(profile: Profile | undefined, stage: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    addTime(profile, stage, performance.now() - t);
  }
}

/**
 * The result plus the label of what actually produced it (the response's `engine`), and the result already
 * encoded in the job's `output` format when the engine did that itself (the neural engine, on its workers).
 */
export type EnhanceOutput = RawImage & { engine: string; encoded?: Buffer };

export interface EnhanceEngine {
  readonly id: string;
  readonly ai: boolean;
  enhance(job: EnhanceJob): Promise<EnhanceOutput>;
}
