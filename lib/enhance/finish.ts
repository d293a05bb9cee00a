// The neural engine's last steps, run on a worker: the network output resized and sharpened to the target, the
// lanczos3 base, the strength blend and the encode, so no image crosses between threads but the upload and the
// encoded bytes. Worker-side code too, so relative imports only.
import sharp from "sharp";
import type { OutputEncoding } from "../catalog/output-formats";
import { encodeEnhanced } from "../images/encode";
import { blendInto } from "./blend";
import type { RawImage } from "./types";

/**
 * The strength mapping (docs/enhancement.md): with L = lanczos3(input → target) and
 * N = sharpen(σ 0.8)(lanczos3(SR(input′) → target)), out = (1 − s)·L + s·N per RGB byte, alpha = lanczos3 alpha.
 * s = 0 is exactly L, and the distance from L grows linearly with s.
 */
export const DETAIL_SHARPEN_SIGMA = 0.8;

export async function resizeLanczos(image: RawImage, width: number, height: number): Promise<RawImage> {
  const { data, info } = await sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels },
  })
    .resize(width, height, { kernel: "lanczos3", fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: image.channels };
}

/** RGB only: lanczos3 to the target when the model's scale overshoots it, then the light detail sharpen. */
export async function sharpenTo(image: RawImage, width: number, height: number): Promise<Buffer> {
  let img = sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
  if (image.channels === 4) img = img.removeAlpha();
  if (image.width !== width || image.height !== height)
    img = img.resize(width, height, { kernel: "lanczos3", fit: "fill" });
  // sharp's sharpen works on lightness with a flat/jagged split (m1 = 1 in flat areas, m2 = 2 on edges): detail-aware.
  return img.sharpen({ sigma: DETAIL_SHARPEN_SIGMA }).raw().toBuffer();
}

export type FinishTimings = { sharpen: number; base: number; blend: number; encode: number };

/**
 * out = blend(lanczos3(input), sharpenTo(detailSource)) at `strength`, written into `out` (target size, the input's
 * channels), and encoded when `output` is given. `detailSource` is the network output, or the input itself when
 * the target is no larger than it.
 */
export async function finishEnhance(
  job: {
    input: RawImage;
    detailSource: RawImage;
    strength: number;
    out: Uint8Array;
    width: number;
    height: number;
    output?: OutputEncoding;
  },
  timings: FinishTimings,
): Promise<Buffer | undefined> {
  const { input, width, height } = job;
  let t = performance.now();
  const detail = await sharpenTo(job.detailSource, width, height);
  timings.sharpen += performance.now() - t;
  t = performance.now();
  // The base is made after the network ran, so it is not held in memory meanwhile.
  const base = await resizeLanczos(input, width, height);
  timings.base += performance.now() - t;
  t = performance.now();
  blendInto(job.out, base.data, base.channels, detail, 3, job.strength, 0, width * height);
  timings.blend += performance.now() - t;
  if (!job.output) return undefined;
  t = performance.now();
  const encoded = await encodeEnhanced({ data: job.out, width, height, channels: input.channels }, job.output);
  timings.encode += performance.now() - t;
  return encoded;
}
