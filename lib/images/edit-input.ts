// An edit's inputs, decoded once: the image at the output size, and the mask in one canonical form (one channel,
// 255 = change, 0 = keep, grey partial) that each engine then converts to its own convention.
import sharp from "sharp";
import type { ImageSize } from "@/lib/catalog/models";
import { ImageTooLarge, InvalidImage, InvalidMask } from "@/lib/errors";
import { probeImage } from "./probe";

export type CanonicalMask = { data: Buffer; width: number; height: number };

export type EditInput = {
  /** The image as an opaque RGB PNG of exactly the output size. */
  png: Buffer;
  /** Raw RGB of the same pixels, for compositing. */
  rgb: Buffer;
  width: number;
  height: number;
  mask?: CanonicalMask;
  /** 0 keeps the image, 1 ignores it; masked-out areas are kept whatever it is. */
  strength: number;
};

/** The header alone: refuses non-images and pixel bombs (413) before anything is decoded. */
export async function probeEditImage(bytes: Buffer, maxPixels: number): Promise<ImageSize> {
  return probeImage(bytes, maxPixels);
}

/** Decodes the image (orientation applied, flattened on white) to `size`. */
export async function decodeEditImage(bytes: Buffer, size: ImageSize, maxPixels: number) {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, failOn: "truncated" })
      .rotate()
      .toColourspace("srgb")
      .flatten({ background: "#ffffff" })
      .resize(size.width, size.height, { fit: "fill" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected channel count ${info.channels}`);
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
      .png({ compressionLevel: 3, adaptiveFiltering: false })
      .toBuffer();
    return { rgb: data, png };
  } catch {
    throw new InvalidImage("The image could not be decoded; it may be truncated or corrupt.");
  }
}

/**
 * Reads a mask: white means change, black keep, grey partial; a mask with any pixel below full opacity is read as
 * OpenAI's are (transparent means change). libvips scales it to `size` as it decodes, so a large mask is never held
 * at its own resolution (a 5000² PNG of 75 KB would be 100 MB of RGBA), and the per-pixel work runs at the output
 * size; transparency is judged there too. A mask that marks nothing is refused.
 */
export async function decodeMask(bytes: Buffer, size: ImageSize, maxPixels: number): Promise<CanonicalMask> {
  try {
    await probeImage(bytes, maxPixels);
  } catch (err) {
    if (err instanceof ImageTooLarge) throw new InvalidMask(`The mask is over the upload limits: ${err.message}`);
    throw new InvalidMask("The mask is not a readable PNG, JPEG or WebP image.");
  }
  const { width, height } = size;
  const scaled = () =>
    sharp(bytes, { limitInputPixels: maxPixels, failOn: "truncated" }).rotate().resize(width, height, { fit: "fill" });
  const out = Buffer.alloc(width * height);
  try {
    const { hasAlpha } = await sharp(bytes).metadata();
    const alpha = hasAlpha ? await scaled().extractChannel("alpha").raw().toBuffer() : undefined;
    if (alpha?.some((a) => a < 255)) {
      for (let i = 0; i < out.length; i++) out[i] = 255 - alpha[i];
    } else {
      const rgb = await scaled().removeAlpha().toColourspace("srgb").raw().toBuffer();
      for (let i = 0; i < out.length; i++) {
        out[i] = Math.round(0.2126 * rgb[i * 3] + 0.7152 * rgb[i * 3 + 1] + 0.0722 * rgb[i * 3 + 2]);
      }
    }
  } catch {
    throw new InvalidMask("The mask could not be decoded; it may be truncated or corrupt.");
  }
  if (!out.some((v) => v > 0)) {
    throw new InvalidMask(
      "The mask marks nothing to change: paint the area to change white (or transparent, in OpenAI's convention).",
    );
  }
  return { data: out, width, height };
}

/** White means change (BFL, fal, Replicate, Stability's MASK_IMAGE_WHITE, LocalAI, A1111 without invert). */
export async function whiteMaskPng(mask: CanonicalMask): Promise<Buffer> {
  return sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
    .toColourspace("b-w")
    .png()
    .toBuffer();
}

/**
 * The image with alpha = 1 − mask: transparent means change. OpenAI reads the mask's alpha so; ComfyUI's LoadImage
 * turns alpha into MASK = 1 − alpha, which VAEEncodeForInpaint repaints.
 */
export async function alphaMaskedPng(input: Pick<EditInput, "rgb" | "width" | "height">, mask: CanonicalMask) {
  const pixels = input.width * input.height;
  const rgba = Buffer.alloc(pixels * 4);
  for (let i = 0; i < pixels; i++) {
    rgba[i * 4] = input.rgb[i * 3];
    rgba[i * 4 + 1] = input.rgb[i * 3 + 1];
    rgba[i * 4 + 2] = input.rgb[i * 3 + 2];
    rgba[i * 4 + 3] = 255 - mask.data[i];
  }
  return sharp(rgba, { raw: { width: input.width, height: input.height, channels: 4 } })
    .png()
    .toBuffer();
}

/**
 * Keeps what the mask keeps: out = image + m·(result − image) per pixel, m = mask/255. Without a mask the result
 * stands. Engines may touch pixels outside the mask; the contract says masked-out areas are kept.
 */
export function composite(imageRgb: Buffer, resultRgb: Buffer, mask: CanonicalMask | undefined): Buffer {
  if (!mask) return resultRgb;
  const out = Buffer.alloc(imageRgb.length);
  for (let i = 0; i < mask.data.length; i++) {
    const m = mask.data[i];
    for (let c = 0; c < 3; c++) {
      const o = i * 3 + c;
      out[o] =
        m === 0
          ? imageRgb[o]
          : m === 255
            ? resultRgb[o]
            : Math.round(imageRgb[o] + ((resultRgb[o] - imageRgb[o]) * m) / 255);
    }
  }
  return out;
}
