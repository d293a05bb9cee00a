// The neural engine's last steps, run on the workers: the network output resized and sharpened to the target, the
// lanczos3 base, the strength blend (each worker a band of rows) and the encode (one worker, the whole image), so
// no image crosses between threads but the upload and the encoded bytes. Worker-side code too, so relative imports
// only.
import sharp, { type Sharp } from "sharp";
import type { OutputEncoding } from "../catalog/output-formats";
import { encodeEnhanced } from "../images/encode";
import { blendInto, detailWeight } from "./blend";
import { splitRange } from "./neural/tiles";
import type { RawImage } from "./types";

/**
 * The strength mapping (docs/enhancement.md): with L = lanczos3(input → target) and
 * N = sharpen(σ 0.8)(lanczos3(SR(input′) → target)), out = (1 − s)·L + s·N per RGB byte, alpha = lanczos3 alpha.
 * s = 0 is exactly L, and the distance from L grows linearly with s.
 */
export const DETAIL_SHARPEN_SIGMA = 0.8;

/**
 * Rows of context above and below a band for the sharpen: libvips's mask for σ 0.8 reaches 1 pixel (its Gaussian
 * stops below 0.2 of the peak), so 4 rows leave room; a band's rows then equal the whole image's rows exactly
 * (tests/unit/neural-finish.test.ts fails with no halo).
 */
export const SHARPEN_HALO = 4;

/** Bands below this many rows are not worth a job of their own: a small image is finished in one. */
export const MIN_BAND_ROWS = 64;

/** Rows [y0, y1) of a finish. */
export type Band = { y0: number; y1: number };

/** The target's rows cut into one band per worker, fewer when bands would be thinner than MIN_BAND_ROWS. */
export function planBands(height: number, workers: number): Band[] {
  const n = Math.max(1, Math.min(workers, Math.floor(height / MIN_BAND_ROWS)));
  return splitRange(height, n).map(([y0, y1]) => ({ y0, y1 }));
}

function rawSharp(image: RawImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}

export async function resizeLanczos(image: RawImage, width: number, height: number): Promise<RawImage> {
  const { data, info } = await rawSharp(image)
    .resize(width, height, { kernel: "lanczos3", fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: image.channels };
}

/** Rows [y0, y1) of the lanczos3 resize to width × height: libvips computes only the rows the band needs. */
export async function resizeLanczosBand(image: RawImage, width: number, height: number, band: Band): Promise<Buffer> {
  let img = rawSharp(image);
  if (image.width !== width || image.height !== height)
    img = img.resize(width, height, { kernel: "lanczos3", fit: "fill" });
  return img
    .extract({ left: 0, top: band.y0, width, height: band.y1 - band.y0 })
    .raw()
    .toBuffer();
}

/** RGB only: lanczos3 to the target when the model's scale overshoots it, then the light detail sharpen. */
export function sharpenTo(image: RawImage, width: number, height: number): Promise<Buffer> {
  return sharpenBand(image, width, height, { y0: 0, y1: height }, 0);
}

/**
 * Rows [y0, y1) of sharpenTo(image, width, height): the band with `halo` rows of context each side (clipped to the
 * image) is resized and sharpened, and the context cut away.
 */
export async function sharpenBand(
  image: RawImage,
  width: number,
  height: number,
  band: Band,
  halo = SHARPEN_HALO,
): Promise<Buffer> {
  const top = Math.max(0, band.y0 - halo);
  const bottom = Math.min(height, band.y1 + halo);
  let img = rawSharp(image);
  if (image.channels === 4) img = img.removeAlpha();
  if (image.width !== width || image.height !== height)
    img = img.resize(width, height, { kernel: "lanczos3", fit: "fill" });
  if (bottom - top < height) img = img.extract({ left: 0, top, width, height: bottom - top });
  // sharp's sharpen works on lightness with a flat/jagged split (m1 = 1 in flat areas, m2 = 2 on edges): detail-aware.
  const rows = await img.sharpen({ sigma: DETAIL_SHARPEN_SIGMA }).raw().toBuffer();
  return rows.subarray((band.y0 - top) * width * 3, (band.y1 - top) * width * 3);
}

export type FinishTimings = { sharpen: number; base: number; blend: number; encode: number };

export type FinishJob = {
  input: RawImage;
  detailSource: RawImage;
  strength: number;
  /** Target size, the input's channels. */
  out: Uint8Array;
  width: number;
  height: number;
};

/**
 * Rows [y0, y1) of out = blend(lanczos3(input), sharpenTo(detailSource)) at `strength`, written into `out`.
 * `detailSource` is the network output, or the input itself when the target is no larger than it. Bands that
 * cover the target make exactly the whole image, so the workers can share one finish.
 */
export async function finishBand(job: FinishJob, band: Band, timings: FinishTimings): Promise<void> {
  const { input, width, height } = job;
  const ch = input.channels;
  const rows = job.out.subarray(band.y0 * width * ch, band.y1 * width * ch);
  const weight = detailWeight(job.strength);
  let t = performance.now();
  // At strength 0 the output is the base alone, and at 1 an RGB output is the detail alone: neither makes the other.
  const detail = weight > 0 ? await sharpenBand(job.detailSource, width, height, band) : undefined;
  timings.sharpen += performance.now() - t;
  if (detail && weight === 65536 && ch === 3) return void rows.set(detail);
  t = performance.now();
  // The base is made after the network ran, so it is not held in memory meanwhile.
  const base = await resizeLanczosBand(input, width, height, band);
  timings.base += performance.now() - t;
  if (!detail) return void rows.set(base);
  t = performance.now();
  blendInto(rows, base, ch, detail, 3, job.strength, 0, width * (band.y1 - band.y0));
  timings.blend += performance.now() - t;
}

/** The finished pixels in `out` encoded whole: one encoder per image. */
export async function encodeFinished(
  job: Pick<FinishJob, "out" | "width" | "height"> & { channels: 3 | 4; output: OutputEncoding },
  timings: FinishTimings,
): Promise<Buffer> {
  const t = performance.now();
  const encoded = await encodeEnhanced(
    { data: job.out, width: job.width, height: job.height, channels: job.channels },
    job.output,
  );
  timings.encode += performance.now() - t;
  return encoded;
}
