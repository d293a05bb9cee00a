// Encodes images into the caller's output format with sharp; sharp writes no metadata unless asked to.
// Also runs in the enhance workers (lib/enhance/neural/sr-worker.ts), so it imports nothing but sharp and types.
import sharp, { type Sharp } from "sharp";
import type { OutputEncoding } from "@/lib/catalog/output-formats";

/** An enhanced PNG: zlib level 2 encodes a 1024² photo 23 % faster than level 6 for 3.6 % more bytes (level 1: +21 %). */
export const ENHANCE_PNG_OPTIONS = { compressionLevel: 2 } as const;

/** Interleaved 8-bit pixels (RGB or RGBA). */
export type RawPixels = { data: Uint8Array; width: number; height: number; channels: 3 | 4 };

function encodeAs(image: Sharp, output: OutputEncoding, png: () => Promise<Buffer>): Promise<Buffer> {
  switch (output.format) {
    case "png":
      return png();
    case "jpeg":
      return image.jpeg({ quality: output.quality, mozjpeg: false }).toBuffer();
    case "webp":
      return image.webp({ quality: output.quality }).toBuffer();
    case "avif":
      // effort 2 of 9: AVIF's default effort costs seconds per megapixel on a small CPU.
      return image.avif({ quality: output.quality, effort: 2 }).toBuffer();
  }
}

/** A finished PNG in the output format (the PNG itself when that is the format). */
export function encodeOutput(png: Buffer, output: OutputEncoding): Promise<Buffer> {
  return encodeAs(sharp(png), output, async () => png);
}

/**
 * Enhanced pixels straight into the output format, with no PNG in between: PNG at ENHANCE_PNG_OPTIONS, the lossy
 * formats from the same pixels a decoded PNG would give, so the bytes equal encodeOutput(PNG of them).
 */
export function encodeEnhanced(image: RawPixels, output: OutputEncoding): Promise<Buffer> {
  const pixels = sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
  return encodeAs(pixels, output, () => pixels.png(ENHANCE_PNG_OPTIONS).toBuffer());
}
