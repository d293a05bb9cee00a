// Safe decoding of uploads: sniff the real format, check dimensions from the header, then decode with a pixel cap.
import sharp from "sharp";
import { InvalidImage } from "@/lib/errors";
import { bufferOf, copyToShared } from "./neural/shared-memory";
import type { RawImage } from "./types";

// The header probe is shared with generate's image input, so it lives with the images.
export { type Probe, probeImage } from "@/lib/images/probe";

/** Decodes the first frame with EXIF orientation applied; truncated or corrupt data is invalid_image. */
export async function decodeImage(bytes: Buffer, maxPixels: number): Promise<RawImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, failOn: "truncated" })
      .rotate()
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
    const channels = info.channels === 4 ? 4 : 3;
    if (info.channels !== channels) throw new Error(`unexpected channel count ${info.channels}`);
    return { data, width: info.width, height: info.height, channels };
  } catch {
    throw new InvalidImage("The image could not be decoded; it may be truncated or corrupt.");
  }
}

/**
 * decodeImage with the pixels moved into shared memory, where the enhance workers read them without a copy of their
 * own: the decoder's buffer is dropped at once, so an enhancement holds one copy of its input, not two.
 */
export async function decodeShared(bytes: Buffer, maxPixels: number): Promise<RawImage> {
  const image = await decodeImage(bytes, maxPixels);
  return { ...image, data: bufferOf(await copyToShared(image.data)) };
}
