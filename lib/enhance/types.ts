// The enhancement engine interface: the sharp pipeline now, the neural engine later.

/** Decoded pixels, orientation already applied. */
export type RawImage = {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
};

export type EnhanceJob = {
  image: RawImage;
  /** Target size, already capped at 4096 px on the long side. */
  width: number;
  height: number;
  /** 0 = faithful lanczos3 resize, 1 = strongest enhancement. */
  strength: number;
  signal: AbortSignal;
};

export interface EnhanceEngine {
  readonly id: string;
  readonly ai: boolean;
  enhance(job: EnhanceJob): Promise<RawImage>;
}
