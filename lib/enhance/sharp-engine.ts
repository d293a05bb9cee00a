// Classical enhancement with sharp (the fallback when the neural engine cannot load): lanczos3, denoise, contrast, sharpening.
import sharp, { type Sharp } from "sharp";
import { blendOver } from "./blend";
import type { EnhanceEngine, RawImage } from "./types";

/**
 * Strength s in [0, 1] maps monotonically to:
 *   denoise: 3×3 median from s > 0.5;
 *   local contrast: a wide unsharp mask, sigma 10, amount 0.8 s;
 *   detail: unsharp mask sigma 0.7 + 0.6 s, amount (m2) 1 + 3 s;
 *   blend: the result is laid over the plain resize with weight s.
 * So s = 0 is exactly the lanczos3 resize, and every part of the effect grows with s.
 */
export function strengthParams(s: number) {
  return { denoise: s > 0.5, contrast: 0.8 * s, sigma: 0.7 + 0.6 * s, m2: 1 + 3 * s, blend: s };
}

async function toRaw(img: Sharp, channels: 3 | 4): Promise<RawImage> {
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels };
}

export const sharpEngine: EnhanceEngine = {
  id: "sharp",
  ai: false,
  async enhance({ image, width, height, strength, signal }) {
    signal.throwIfAborted();
    const input = { raw: { width: image.width, height: image.height, channels: image.channels } };
    const resized = await toRaw(
      sharp(image.data, { raw: input.raw }).resize(width, height, { kernel: "lanczos3" }),
      image.channels,
    );
    if (strength <= 0) return { ...resized, engine: "sharp" };

    const p = strengthParams(strength);
    const raw = { raw: { width, height, channels: image.channels } };
    // sharp keeps one setting per operation, so the two unsharp masks need two passes.
    const base = p.denoise ? sharp(resized.data, raw).median(3) : sharp(resized.data, raw);
    const contrasted = await toRaw(base.sharpen({ sigma: 10, m1: p.contrast, m2: p.contrast }), image.channels);
    const enhanced = await toRaw(
      sharp(contrasted.data, raw).sharpen({ sigma: p.sigma, m1: 1, m2: p.m2 }),
      image.channels,
    );
    signal.throwIfAborted();
    return { ...resized, data: blendOver(resized, enhanced.data, p.blend, image.channels), engine: "sharp" };
  },
};
