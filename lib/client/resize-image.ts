// Shrinks an over-limit photo in the browser, so a deployment's small upload cap (e.g. 4.5 MB on Vercel) doesn't turn it away.
import { MAX_OUTPUT_SIDE } from "@/lib/schemas/enhance-rules";
import type { UploadLimits } from "./upload-rules";

export type Resized = { blob: Blob; width: number; height: number; sourceWidth: number; sourceHeight: number };
export type ResizeResult = { ok: true; resized: Resized } | { ok: false; reason: "undecodable" | "unshrinkable" };

// The platform's body limit counts the multipart envelope too; the server allows 64 KB on top of the file.
const ENVELOPE_BYTES = 64 * 1024;
const QUALITY_START = 0.9;
const QUALITY_FLOOR = 0.7;
const MAX_ENCODES = 8;
const MAX_REFINES = 3;
const MIN_SIDE = 64;

type Size = { width: number; height: number };
type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

export function targetBytes(maxBytes: number): number {
  return Math.floor(maxBytes - Math.min(ENVELOPE_BYTES, maxBytes * 0.1));
}

/**
 * Never upscales. The long side is also held to the enhancer's output cap: once a photo has to be re-encoded anyway,
 * pixels beyond what the result can show only cost upload bytes and quality steps.
 */
export function fitScale(size: Size, maxPixels: number, maxSide = MAX_OUTPUT_SIDE): number {
  const byPixels = Math.sqrt(maxPixels / (size.width * size.height));
  const bySide = maxSide / Math.max(size.width, size.height);
  return Math.min(1, byPixels, bySide);
}

function scaled(size: Size, f: number): Size {
  // The epsilon keeps 6000 × (4096 / 6000) from flooring to 4095.
  const side = (n: number) => Math.max(1, Math.floor(n * f + 1e-9));
  return { width: side(size.width), height: side(size.height) };
}

async function decode(file: Blob): Promise<ImageBitmap | null> {
  try {
    // Phones store portraits sideways plus an EXIF flag; the server applies it, so the pixels sent must too.
    return await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return null;
  }
}

/** Draws once per size; the quality steps then only re-encode. */
function surface(
  bitmap: ImageBitmap,
  size: Size,
  matte: boolean,
): (type: string, quality: number) => Promise<Blob | null> {
  const paint = (ctx: Context2D) => {
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = "high";
    // JPEG has no alpha: transparent areas would turn black without a white matte.
    if (matte) {
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, size.width, size.height);
    }
    ctx.drawImage(bitmap, 0, 0, size.width, size.height);
  };
  if (typeof OffscreenCanvas === "function") {
    const canvas = new OffscreenCanvas(size.width, size.height);
    const ctx = canvas.getContext("2d");
    if (!ctx) return async () => null;
    paint(ctx);
    return (type, quality) => canvas.convertToBlob({ type, quality }).catch(() => null);
  }
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  const ctx = canvas.getContext("2d");
  if (!ctx) return async () => null;
  paint(ctx);
  return (type, quality) => new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

let webpSupport: Promise<boolean> | null = null;
/** Safari's canvas cannot write WebP and silently returns PNG instead, so ask once. */
function canEncodeWebp(bitmap: ImageBitmap): Promise<boolean> {
  webpSupport ??= surface(
    bitmap,
    { width: 1, height: 1 },
    false,
  )("image/webp", 0.8).then((b) => b?.type === "image/webp");
  return webpSupport;
}

export async function shrinkToFit(file: File, limits: UploadLimits): Promise<ResizeResult> {
  const bitmap = await decode(file);
  if (!bitmap) return { ok: false, reason: "undecodable" };
  try {
    const source = { width: bitmap.width, height: bitmap.height };
    // JPEG stays JPEG; anything that may carry transparency becomes WebP where the browser can write it.
    const type = file.type === "image/jpeg" || !(await canEncodeWebp(bitmap)) ? "image/jpeg" : "image/webp";
    const goal = targetBytes(limits.maxBytes);
    let quality = QUALITY_START;
    const tryScale = async (f: number): Promise<Resized | null> => {
      const size = scaled(source, f);
      const blob = await surface(bitmap, size, type === "image/jpeg")(type, quality);
      return blob && { blob, ...size, sourceWidth: source.width, sourceHeight: source.height };
    };

    // Find a fit: quality steps for modest overshoots, pixel cuts for large ones.
    let scale = fitScale(source, limits.maxPixels);
    let tooBigScale: number | null = null;
    let fit: Resized | null = null;
    for (let i = 0; i < MAX_ENCODES; i++) {
      const out = await tryScale(scale);
      if (!out) return { ok: false, reason: "undecodable" };
      if (out.blob.size <= goal) {
        fit = out;
        break;
      }
      const ratio = goal / out.blob.size;
      if (quality > QUALITY_FLOOR + 0.01 && ratio > 0.6) {
        // A modest overshoot costs less detail as a quality step than as lost pixels.
        quality = Math.round((quality - 0.1) * 10) / 10;
        continue;
      }
      // Bytes grow roughly with pixel count; aim a little under so the next try usually fits.
      tooBigScale = scale;
      scale *= Math.sqrt(ratio) * 0.92;
      if (Math.min(source.width, source.height) * scale < MIN_SIDE) break;
    }
    if (!fit) return { ok: false, reason: "unshrinkable" };

    // Downscaling smooths noise, so bytes fall faster than pixels and the cut often overshoots: win some back.
    let lo = scale;
    let hi = tooBigScale;
    for (let i = 0; hi !== null && i < MAX_REFINES && fit.blob.size < goal * 0.85; i++) {
      const mid = i === 0 ? Math.min(lo * Math.sqrt((goal * 0.95) / fit.blob.size), hi * 0.97) : Math.sqrt(lo * hi);
      const out = await tryScale(mid);
      if (out && out.blob.size <= goal) {
        fit = out;
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return { ok: true, resized: fit };
  } finally {
    bitmap.close();
  }
}
