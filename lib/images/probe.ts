// The header check every upload gets before it is decoded: the real format, and the pixel count (a bomb is refused
// from its header). Shared by enhance and by generate's image input.
import sharp, { type Metadata } from "sharp";
import { ImageTooLarge, InvalidImage } from "@/lib/errors";
import { ACCEPTED_IMAGE_FORMATS } from "@/lib/schemas/enhance-rules";

const ACCEPTED = new Set<string>([...ACCEPTED_IMAGE_FORMATS, "heif"]);

/**
 * `channels`: what a decode to sRGB makes of it, 4 with alpha, else 3. `plainPng`: an 8-bit, one-frame PNG with no
 * metadata to strip (no EXIF, ICC, XMP, IPTC or text chunks), which can go to an engine as it is.
 */
export type Probe = { format: string; width: number; height: number; channels: 3 | 4; plainPng: boolean };

/** Reads only the header. Rejects non-images, SVG (whatever the Content-Type said) and pixel bombs. */
export async function probeImage(bytes: Buffer, maxPixels: number): Promise<Probe> {
  if (bytes.length === 0) throw new InvalidImage("The image file is empty.");
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new InvalidImage("The file is not a readable PNG, JPEG, WebP, AVIF or GIF image.");
  }
  // heif covers AVIF (and HEIC where libheif can decode it).
  if (!meta.format || !ACCEPTED.has(meta.format) || !meta.width || !meta.height) {
    throw new InvalidImage("The file is not a PNG, JPEG, WebP, AVIF or GIF image.");
  }
  const frames = meta.pages ?? 1;
  if (
    meta.width * meta.height > maxPixels ||
    (frames > 1 && meta.width * (meta.pageHeight ?? meta.height) > maxPixels)
  ) {
    throw new ImageTooLarge(`The image must be at most ${maxPixels / 1_000_000} megapixels.`);
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  return {
    format: meta.format,
    width: rotated ? meta.height : meta.width,
    height: rotated ? meta.width : meta.height,
    channels: meta.hasAlpha ? 4 : 3,
    plainPng: isPlainPng(meta),
  };
}

function isPlainPng(meta: Metadata): boolean {
  const metadata = meta.exif ?? meta.icc ?? meta.xmp ?? meta.iptc ?? meta.comments?.[0];
  return meta.format === "png" && meta.depth === "uchar" && (meta.pages ?? 1) === 1 && metadata === undefined;
}
