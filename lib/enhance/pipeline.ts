// The enhance pipeline: target size under the 4096 px cap, engine, then PNG without metadata.
import sharp from "sharp";
import { DEFAULT_ENHANCE_MODE } from "@/lib/catalog/enhance-modes";
import { MAX_OUTPUT_SIDE } from "@/lib/schemas/enhance";
import type { EnhanceJob, EnhanceOutput, ModelChoice, RawImage } from "./types";

export type EnhanceOptions = {
  strength: number;
  scale: 2 | 4;
  model?: ModelChoice;
  signal: AbortSignal;
  onProgress?: EnhanceJob["onProgress"];
};
export type RunEngine = (job: EnhanceJob) => Promise<EnhanceOutput>;

/** Output size for a scale, lowered so the long side stays within 4096 px. */
export function targetSize(width: number, height: number, scale: number) {
  const effective = Math.min(scale, MAX_OUTPUT_SIDE / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * effective)),
    height: Math.max(1, Math.round(height * effective)),
    scale: effective,
  };
}

export async function enhanceRaw(run: RunEngine, image: RawImage, opts: EnhanceOptions) {
  const target = targetSize(image.width, image.height, opts.scale);
  const out = await run({
    image,
    width: target.width,
    height: target.height,
    strength: opts.strength,
    model: opts.model ?? DEFAULT_ENHANCE_MODE,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  // sharp writes no EXIF/XMP/ICC unless asked (withMetadata), so GPS and the rest are gone.
  const png = await sharp(out.data, { raw: { width: out.width, height: out.height, channels: out.channels } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return { png, width: out.width, height: out.height, scale: target.scale, engine: out.engine };
}
