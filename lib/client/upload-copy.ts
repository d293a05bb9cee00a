// Plain words for what happened to an over-limit photo: resized in the browser, or refused and why.
import { byteBaseFor, formatBytes, formatOverLimit, megapixels, type UploadLimits } from "./upload-rules";

type Sized = { width: number; height: number; bytes: number };
export type ResizeFacts = { from: Sized; to: Sized; overBytes: boolean; overPixels: boolean; limits: UploadLimits };
export type ResizeNote = ResizeFacts & { message: string };

function limitPhrase(overBytes: boolean, overPixels: boolean, limits: UploadLimits): string {
  const bytes = formatBytes(limits.maxBytes, byteBaseFor(limits.maxBytes));
  const pixels = `${megapixels(limits.maxPixels)}-megapixel`;
  if (overBytes && overPixels) return `this server's ${bytes} and ${pixels} upload limits`;
  return overBytes ? `this server's ${bytes} upload limit` : `this server's ${pixels} upload limit`;
}

export function describeResize(n: ResizeFacts): string {
  const base = byteBaseFor(n.limits.maxBytes);
  const from = `${n.from.width}×${n.from.height} (${formatBytes(n.from.bytes, base)})`;
  const to = `${n.to.width}×${n.to.height} (${formatBytes(n.to.bytes, base)})`;
  return `Resized in your browser from ${from} to ${to} to fit ${limitPhrase(n.overBytes, n.overPixels, n.limits)}.`;
}

export function unshrinkableMessage(
  file: File,
  size: { width: number; height: number } | null,
  limits: UploadLimits,
  reason: "undecodable" | "unshrinkable" | "too-many-pixels",
): string {
  const name = `“${file.name || "This image"}”`;
  const overBytes = file.size > limits.maxBytes;
  const pixels = size ? size.width * size.height : 0;
  const facts = overBytes
    ? formatOverLimit(file.size, limits.maxBytes).size
    : `${size?.width}×${size?.height}, ${megapixels(pixels)} megapixels`;
  const over = `${name} (${facts}) is over ${limitPhrase(overBytes, pixels > limits.maxPixels, limits)}`;
  switch (reason) {
    case "undecodable":
      return `${over}, and your browser couldn't read it as an image to make it smaller. Try exporting it as a JPEG and upload that.`;
    case "too-many-pixels":
      return `${over}, and it is too large for your browser to resize. Scale it down in a photo editor first.`;
    case "unshrinkable":
      return `${over}, and it couldn't be made small enough here. Try a smaller or simpler photo.`;
  }
}
