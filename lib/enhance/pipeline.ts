// The enhance pipeline: target size under the 4096 px cap, engine, then the output format without metadata.
import { DEFAULT_ENHANCE_MODE } from "@/lib/catalog/enhance-modes";
import { DEFAULT_OUTPUT, type OutputEncoding } from "@/lib/catalog/output-formats";
import { encodeEnhanced } from "@/lib/images/encode";
import { MAX_OUTPUT_SIDE } from "@/lib/schemas/enhance";
import { type EnhanceJob, type EnhanceOutput, type ModelChoice, type Profile, type RawImage, timed } from "./types";

export type EnhanceOptions = {
  strength: number;
  scale: 2 | 4;
  model?: ModelChoice;
  signal: AbortSignal;
  onProgress?: EnhanceJob["onProgress"];
  profile?: Profile;
  /** png unless the caller asked for another format. */
  output?: OutputEncoding;
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

/** The enhanced image, encoded in the output format: by the engine's workers when it can, else here with sharp. */
export async function enhanceRaw(run: RunEngine, image: RawImage, opts: EnhanceOptions) {
  const target = targetSize(image.width, image.height, opts.scale);
  const output = opts.output ?? DEFAULT_OUTPUT;
  const out = await run({
    image,
    width: target.width,
    height: target.height,
    strength: opts.strength,
    model: opts.model ?? DEFAULT_ENHANCE_MODE,
    signal: opts.signal,
    onProgress: opts.onProgress,
    profile: opts.profile,
    output,
  });
  // sharp writes no EXIF/XMP/ICC unless asked (withMetadata), so GPS and the rest are gone.
  const bytes =
    out.encoded ??
    (await timed(opts.profile, `${output.format.toUpperCase()} encode (main, sharp)`, () =>
      encodeEnhanced(out, output),
    ));
  return {
    bytes,
    format: output.format,
    width: out.width,
    height: out.height,
    scale: target.scale,
    engine: out.engine,
  };
}
