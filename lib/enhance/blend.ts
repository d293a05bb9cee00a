// The strength blend both enhance engines share: the enhanced detail laid over the plain lanczos3 resize.
// Worker-side code too (the neural engine blends in its workers), so relative imports only.
import type { RawImage } from "./types";

/**
 * (1 − t)·base + t·detail on RGB with 16-bit weights, so nearby strengths still differ; alpha is kept from base.
 * `detail` holds `detailChannels` bytes per pixel (3 from the network, or the base's own layout).
 */
export function blendOver(base: RawImage, detail: Uint8Array, t: number, detailChannels: 3 | 4 = 3): Buffer {
  const out = Buffer.allocUnsafe(base.data.length);
  blendInto(out, base.data, base.channels, detail, detailChannels, t, 0, base.width * base.height);
  return out;
}

/** The detail's 16-bit weight at strength t: 0 makes out exactly base, 65536 exactly detail (alpha from base). */
export function detailWeight(t: number): number {
  return Math.round(t * 65536);
}

/** The blend of pixels [from, to) into `out`, which may be `base` itself (each pixel is read before it is written). */
export function blendInto(
  out: Uint8Array,
  base: Uint8Array,
  baseChannels: number,
  detail: Uint8Array,
  detailChannels: number,
  t: number,
  from: number,
  to: number,
) {
  const ch = baseChannels;
  const wb = detailWeight(t);
  const wa = 65536 - wb;
  const end = to * ch;
  for (let i = from * ch, j = from * detailChannels; i < end; i += ch, j += detailChannels) {
    out[i] = (base[i] * wa + detail[j] * wb + 32768) >>> 16;
    out[i + 1] = (base[i + 1] * wa + detail[j + 1] * wb + 32768) >>> 16;
    out[i + 2] = (base[i + 2] * wa + detail[j + 2] * wb + 32768) >>> 16;
    if (ch === 4) out[i + 3] = base[i + 3];
  }
}
