// What GET and HEAD /cdn/<file> answer, in Web types: used by server.ts, which serves these paths itself (Next drops
// Content-Length from route handler responses), and by the route handler behind it.
import crypto from "node:crypto";
import { formatOfExtension, OUTPUT_FORMATS } from "@/lib/catalog/output-formats";
import { StorageUnavailable } from "@/lib/errors";
import { toApiError } from "@/lib/schemas/api-error";
import { isImageId } from "@/lib/storage/names";
import type { ImageStorage, OpenedImage } from "@/lib/storage/types";

export type ImageReply = {
  status: 200 | 304 | 404 | 503;
  headers: Record<string, string>;
  /** The image, a JSON error, or nothing (HEAD and 304). Whoever does not send a stream must cancel it. */
  body: ReadableStream<Uint8Array> | string | null;
};

const IMMUTABLE = "public, max-age=31536000, immutable";
const NOT_FOUND_BODY = JSON.stringify({
  success: false,
  error: { code: "not_found", message: "No image at this address." },
});

export async function replyWithImage(
  storage: ImageStorage,
  file: string,
  req: { method: "GET" | "HEAD"; ifNoneMatch: string | null },
): Promise<ImageReply> {
  const match = /^([a-f0-9]{32})\.([a-z]+)$/.exec(file);
  const format = match ? formatOfExtension(match[2]) : undefined;
  // PNG ids predate formats and carry no extension; the others carry theirs.
  const id = match && format ? (format === "png" ? match[1] : file) : undefined;
  // Opened before any header is decided, so a 200 or 304 is only ever sent for an image that exists.
  let image: OpenedImage | null;
  try {
    image = id && isImageId(id) ? await storage.open(id) : null;
  } catch (err) {
    if (!(err instanceof StorageUnavailable)) throw err;
    // The bucket does not answer: busy, like every other request that needs it, and never cached as a 404.
    const busy = toApiError(err, `req_${crypto.randomUUID().replaceAll("-", "")}`);
    const headers = {
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Retry-After": String(busy.retryAfter ?? 5),
    };
    if (req.method === "HEAD") return { status: 503, headers, body: null };
    const body = JSON.stringify({ success: false, error: { code: busy.code, message: busy.message } });
    return { status: 503, headers: { ...headers, "Content-Type": "application/json" }, body };
  }
  if (!id || !image) {
    const headers = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
    if (req.method === "HEAD") return { status: 404, headers, body: null };
    return { status: 404, headers: { ...headers, "Content-Type": "application/json" }, body: NOT_FOUND_BODY };
  }
  // Every stored image has its own random id and never changes, so the id is a strong validator.
  const etag = `"${match?.[1]}"`;
  const headers: Record<string, string> = {
    "Cache-Control": IMMUTABLE,
    ETag: etag,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
  if (matchesIfNoneMatch(req.ifNoneMatch, etag)) {
    await image.stream.cancel();
    return { status: 304, headers, body: null };
  }
  headers["Content-Type"] = OUTPUT_FORMATS[format ?? "png"].contentType;
  headers["Content-Length"] = String(image.size);
  if (req.method === "HEAD") {
    await image.stream.cancel();
    return { status: 200, headers, body: null };
  }
  return { status: 200, headers, body: image.stream };
}

/** RFC 9110 §13.1.2: `*`, or any listed tag equal to ours under weak comparison. */
function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
