// The strength blend both enhance engines share: the enhanced detail laid over the plain lanczos3 resize.
import type { RawImage } from "./types";

/**
 * (1 − t)·base + t·detail on RGB with 16-bit weights, so nearby strengths still differ; alpha is kept from base.
 * `detail` holds `detailChannels` bytes per pixel (3 from the network, or the base's own layout).
 */
export function blendOver(base: RawImage, detail: Buffer, t: number, detailChannels: 3 | 4 = 3): Buffer {
  const ch = base.channels;
  const out = Buffer.allocUnsafe(base.data.length);
  const wb = Math.round(t * 65536);
  const wa = 65536 - wb;
  const a = base.data;
  for (let i = 0, j = 0; i < a.length; i += ch, j += detailChannels) {
    out[i] = (a[i] * wa + detail[j] * wb + 32768) >>> 16;
    out[i + 1] = (a[i + 1] * wa + detail[j + 1] * wb + 32768) >>> 16;
    out[i + 2] = (a[i + 2] * wa + detail[j + 2] * wb + 32768) >>> 16;
    if (ch === 4) out[i + 3] = a[i + 3];
  }
  return out;
}
