// Turns a chosen file into a checked, previewable image: type first, then size and pixels, resizing what is too large.
import { shrinkToFit } from "./resize-image";
import { describeResize, type ResizeFacts, type ResizeNote, unshrinkableMessage } from "./upload-copy";
import { checkUploadType, type UploadLimits } from "./upload-rules";

export type PickedImage = {
  /** What will be uploaded: the chosen file, or its resized copy. */
  file: File;
  previewUrl: string;
  width: number;
  height: number;
  /** Set when the browser resized the photo, so the page can say so and label sizes honestly. */
  resized: ResizeNote | null;
};

export type PickResult = { ok: true; image: PickedImage } | { ok: false; message: string };

// Beyond this the browser would need gigabytes to decode it, so it is refused rather than resized.
const MAX_DECODE_PIXELS = 200_000_000;

function measure(url: string): Promise<{ width: number; height: number } | null> {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => resolve(null);
    img.src = url;
  });
}

function renamed(name: string, type: string): string {
  const base = name.replace(/\.[^.]+$/, "") || "image";
  return `${base}.${type === "image/webp" ? "webp" : "jpg"}`;
}

/** onResizing fires only when a resize starts, so the page can show that work is under way. */
export async function pickImage(file: File, limits: UploadLimits, onResizing?: () => void): Promise<PickResult> {
  const problem = checkUploadType(file);
  if (problem) return { ok: false, message: problem };
  const previewUrl = URL.createObjectURL(file);
  const size = await measure(previewUrl);
  const overBytes = file.size > limits.maxBytes;
  const overPixels = size !== null && size.width * size.height > limits.maxPixels;
  if (!overBytes && !overPixels) {
    // Some valid formats (e.g. AVIF in older browsers) cannot be previewed here; the server still decides.
    return { ok: true, image: { file, previewUrl, width: size?.width ?? 0, height: size?.height ?? 0, resized: null } };
  }
  URL.revokeObjectURL(previewUrl);
  if (size && size.width * size.height > MAX_DECODE_PIXELS) {
    return { ok: false, message: unshrinkableMessage(file, size, limits, "too-many-pixels") };
  }

  onResizing?.();
  const out = await shrinkToFit(file, limits);
  if (!out.ok) return { ok: false, message: unshrinkableMessage(file, size, limits, out.reason) };
  const { blob, width, height, sourceWidth, sourceHeight } = out.resized;
  const resizedFile = new File([blob], renamed(file.name, blob.type), { type: blob.type });
  const facts: ResizeFacts = {
    from: { width: sourceWidth, height: sourceHeight, bytes: file.size },
    to: { width, height, bytes: blob.size },
    overBytes,
    overPixels: sourceWidth * sourceHeight > limits.maxPixels,
    limits,
  };
  return {
    ok: true,
    image: {
      file: resizedFile,
      previewUrl: URL.createObjectURL(resizedFile),
      width,
      height,
      resized: { ...facts, message: describeResize(facts) },
    },
  };
}

/** "Enhance this" hands over a generated image by URL; only our own origin (or its CDN) is fetched. */
export async function fetchAsFile(src: string): Promise<File | null> {
  try {
    const url = new URL(src, window.location.href);
    if (!/^https?:$/.test(url.protocol)) return null;
    const res = await fetch(url, { credentials: "omit" });
    if (!res.ok) return null;
    const blob = await res.blob();
    const name = url.pathname.split("/").pop() || "image.png";
    return new File([blob], name, { type: blob.type || "image/png" });
  } catch {
    return null;
  }
}

/** The types POST /api/generate takes as an image; anything else the browser can read is sent as PNG. */
const EDIT_TYPES = ["image/png", "image/jpeg", "image/webp"];

/** A picked image as an upload the generate route takes: as it is, or re-encoded to PNG (AVIF, GIF). */
export async function asEditUpload(file: File): Promise<File> {
  if (EDIT_TYPES.includes(file.type)) return file;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const canvas = document.createElement("canvas");
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    canvas.getContext("2d")?.drawImage(bitmap, 0, 0);
    bitmap.close();
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (!blob) return file;
    return new File([blob], `${file.name.replace(/\.[^.]+$/, "") || "image"}.png`, { type: "image/png" });
  } catch {
    return file; // the server then says what is wrong with it
  }
}
