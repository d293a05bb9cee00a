// Turns whatever a provider sent (PNG, JPEG, WebP, any size) into a PNG of exactly the model's size for the ratio.
import sharp from "sharp";
import { ProviderError } from "./failures";

/** Far above any provider output; stops a decompression bomb before it is decoded. */
const MAX_INPUT_PIXELS = 40_000_000;

/**
 * Centre-crops to the target shape, then scales: gpt-image-1's 1536×1024 becomes 1536×864 for 16:9,
 * and a provider's nearest-shape output (e.g. 1344×768 for a 1376×768 target) is trimmed by a few pixels.
 */
export async function normalizeImage(bytes: Uint8Array, width: number, height: number): Promise<Buffer> {
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" });
    const meta = await image.metadata();
    if (!meta.width || !meta.height || !["png", "jpeg", "webp"].includes(meta.format ?? "")) {
      throw new Error(`unsupported image format ${meta.format ?? "unknown"}`);
    }
    return await image
      .rotate()
      .flatten({ background: "#ffffff" })
      .resize(width, height, { fit: "cover", position: "centre" })
      .png()
      .toBuffer();
  } catch (err) {
    throw new ProviderError(
      "malformed",
      `undecodable provider image: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
