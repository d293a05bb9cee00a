// The image library's HTTP side: records as the API shows them, the list query and its opaque cursor, the path id.
import type { OutputFormat } from "@/lib/catalog/output-formats";
import { effectiveExpiry } from "@/lib/images/library";
import { type ImageRecord, parsePosition } from "@/lib/images/store";
import { ApiError } from "@/lib/schemas/api-error";
import { IMAGES_DEFAULT_LIMIT, IMAGES_MAX_LIMIT, type ImageJson } from "@/lib/schemas/images";

export function imageJsonOf(record: ImageRecord, retentionDays: number): ImageJson {
  const expiresAt = effectiveExpiry(record, retentionDays);
  const base = {
    id: record.id,
    kind: record.kind,
    url: record.url,
    width: record.width,
    height: record.height,
    bytes: record.bytes,
    created_at: new Date(record.createdAt).toISOString(),
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    model: record.params.model,
    ...(record.params.engine !== undefined && { engine: record.params.engine }),
    ...(record.params.format !== undefined && { format: record.params.format as OutputFormat }),
    ...(record.sourceImageId !== undefined && { source_image_id: record.sourceImageId }),
  };
  const p = record.params;
  if ("prompt" in p) {
    return {
      ...base,
      prompt: p.prompt,
      style: p.style,
      ratio: p.ratio,
      ...(p.seed !== undefined && { seed: p.seed }),
      ...(p.ai !== undefined && { ai: p.ai }),
      ...(p.strength !== undefined && { strength: p.strength, masked: p.masked ?? false }),
    };
  }
  return {
    ...base,
    strength: p.strength,
    scale: p.scale,
    original_size: `${p.originalWidth}x${p.originalHeight}`,
    enhanced_size: `${record.width}x${record.height}`,
  };
}

/** Cursors are opaque to callers: a base64url position. */
export function encodeCursor(position: string): string {
  return Buffer.from(position, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,800}$/.test(cursor)) return null;
  const position = Buffer.from(cursor, "base64url").toString("utf8");
  return parsePosition(position) ? position : null;
}

/** `limit` (1 or more, capped at 100, default 20) and `cursor`; anything malformed is 400 invalid_request. */
export function parseImageListQuery(req: Request): { limit: number; after?: string } {
  const params = new URL(req.url).searchParams;
  const rawLimit = params.get("limit");
  let limit = IMAGES_DEFAULT_LIMIT;
  if (rawLimit !== null) {
    if (!/^\d{1,9}$/.test(rawLimit.trim()) || Number(rawLimit) < 1) {
      throw new ApiError("invalid_request", `limit must be an integer from 1 to ${IMAGES_MAX_LIMIT}.`);
    }
    limit = Math.min(Number(rawLimit), IMAGES_MAX_LIMIT);
  }
  const cursor = params.get("cursor");
  if (cursor === null || cursor === "") return { limit };
  const after = decodeCursor(cursor);
  if (!after) throw new ApiError("invalid_request", "cursor is not one this API returned (use next_cursor as given).");
  return { limit, after };
}

const IMAGES_PATH = "/api/images/";

/** The id after /api/images/ (Blob ids contain slashes, sent as they are or percent-encoded); null if unreadable. */
export function readImageId(req: Request): string | null {
  const { pathname } = new URL(req.url);
  if (!pathname.startsWith(IMAGES_PATH)) return null;
  try {
    const id = decodeURIComponent(pathname.slice(IMAGES_PATH.length));
    return id.length > 0 && id.length <= 300 ? id : null;
  } catch {
    return null;
  }
}
