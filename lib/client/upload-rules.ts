// Client-side upload checks mirroring the server's defaults, so obvious rejections never cost an upload.
import { ACCEPTED_IMAGE_TYPES } from "@/lib/schemas/enhance";

/** The server's defaults (MAX_UPLOAD_BYTES and its 25 MP cap); an operator's override still wins server-side. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const MAX_UPLOAD_PIXELS = 25_000_000;
export const ACCEPT_ATTRIBUTE = ACCEPTED_IMAGE_TYPES.join(",");

const EXTENSIONS = /\.(png|jpe?g|webp|avif|gif)$/i;

export function checkUploadFile(file: File): string | null {
  const typeOk = file.type ? (ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type) : EXTENSIONS.test(file.name);
  if (!typeOk) return `“${file.name || "This file"}” is not a PNG, JPEG, WebP, AVIF or GIF image.`;
  if (file.size === 0) return "This file is empty.";
  if (file.size > MAX_UPLOAD_BYTES) return `This file is ${formatBytes(file.size)}; the limit is 10 MB.`;
  return null;
}

export function checkUploadPixels(width: number, height: number): string | null {
  if (width * height > MAX_UPLOAD_PIXELS) {
    return `This image is ${width}×${height} (${(width * height / 1e6).toFixed(1)} megapixels); the limit is 25 megapixels.`;
  }
  return null;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
