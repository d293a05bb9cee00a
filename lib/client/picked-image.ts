// Turns a chosen file into a checked, previewable image: type and size first, then its pixel count.
import { checkUploadFile, checkUploadPixels } from "./upload-rules";

export type PickedImage = { file: File; previewUrl: string; width: number; height: number };

function measure(url: string): Promise<{ width: number; height: number } | null> {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => resolve(null);
    img.src = url;
  });
}

export async function pickImage(file: File): Promise<{ ok: true; image: PickedImage } | { ok: false; message: string }> {
  const problem = checkUploadFile(file);
  if (problem) return { ok: false, message: problem };
  const previewUrl = URL.createObjectURL(file);
  const size = await measure(previewUrl);
  if (!size) {
    // Some valid formats (e.g. AVIF in older browsers) cannot be previewed here; the server still decides.
    return { ok: true, image: { file, previewUrl, width: 0, height: 0 } };
  }
  const tooBig = checkUploadPixels(size.width, size.height);
  if (tooBig) {
    URL.revokeObjectURL(previewUrl);
    return { ok: false, message: tooBig };
  }
  return { ok: true, image: { file, previewUrl, ...size } };
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
