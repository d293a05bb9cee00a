// Client-side upload limits and checks, taken from this deployment's status so obvious rejections never cost an upload.
import { ACCEPTED_IMAGE_TYPES } from "@/lib/schemas/enhance-rules";
import type { StatusResponse } from "@/lib/schemas/status";

export type UploadLimits = { maxBytes: number; maxPixels: number };

/** The server's defaults, used until /api/status has said what this deployment really allows. */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxBytes: 10 * 1024 * 1024, maxPixels: 25_000_000 };
export const ACCEPT_ATTRIBUTE = ACCEPTED_IMAGE_TYPES.join(",");

const EXTENSIONS = /\.(png|jpe?g|webp|avif|gif)$/i;

export function uploadLimitsFrom(status: StatusResponse | null): UploadLimits {
  // An older server may not publish its limits yet; its defaults are then the best guess.
  const upload = status?.upload;
  return upload ? { maxBytes: upload.max_bytes, maxPixels: upload.max_pixels } : DEFAULT_UPLOAD_LIMITS;
}

/** Type and emptiness only: size and pixel count are fixed by resizing, not refused. */
export function checkUploadType(file: File): string | null {
  const typeOk = file.type
    ? (ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type)
    : EXTENSIONS.test(file.name);
  if (!typeOk) return `“${file.name || "This file"}” is not a PNG, JPEG, WebP, AVIF or GIF image.`;
  if (file.size === 0) return "This file is empty.";
  return null;
}

/**
 * The byte base a limit was most likely written in: 4500000 reads as 4.5 MB (Vercel's wording), 10 MiB as 10 MB.
 * Every size in one message uses the limit's base, so a file never looks smaller than a limit it exceeds.
 */
export function byteBaseFor(limit: number): 1000 | 1024 {
  return limit % 1024 !== 0 && limit % 1000 === 0 ? 1000 : 1024;
}

export function formatBytes(n: number, base: 1000 | 1024 = 1024, decimals = 1): string {
  if (n < base) return `${n} B`;
  if (n < base * base) return `${(n / base).toFixed(0)} KB`;
  return `${(n / base / base).toFixed(decimals).replace(/\.0+$/, "")} MB`;
}

/** A size next to the limit it exceeds, with enough decimals that the two never read the same. */
export function formatOverLimit(size: number, limit: number): { size: string; limit: string } {
  const base = byteBaseFor(limit);
  for (let d = 1; d < 4; d++) {
    const s = formatBytes(size, base, d);
    if (s !== formatBytes(limit, base, d)) return { size: s, limit: formatBytes(limit, base) };
  }
  return { size: `${size.toLocaleString("en")} bytes`, limit: `${limit.toLocaleString("en")} bytes` };
}

export function megapixels(pixels: number): number {
  return Number((pixels / 1e6).toFixed(1));
}
