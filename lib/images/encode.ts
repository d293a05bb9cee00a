// Encodes a finished PNG into the caller's output format with sharp; sharp writes no metadata unless asked to.
import sharp from "sharp";
import type { OutputEncoding } from "@/lib/catalog/output-formats";

export async function encodeOutput(png: Buffer, output: OutputEncoding): Promise<Buffer> {
  const image = sharp(png);
  switch (output.format) {
    case "png":
      return png;
    case "jpeg":
      return image.jpeg({ quality: output.quality, mozjpeg: false }).toBuffer();
    case "webp":
      return image.webp({ quality: output.quality }).toBuffer();
    case "avif":
      // effort 2 of 9: AVIF's default effort costs seconds per megapixel on a small CPU.
      return image.avif({ quality: output.quality, effort: 2 }).toBuffer();
  }
}
