// Reads a JSON request body with a hard size cap, so a huge body is refused without being buffered.
import { ApiError } from "@/lib/schemas/api-error";

export const MAX_JSON_BYTES = 64 * 1024;

export async function readJsonObject(req: Request, maxBytes = MAX_JSON_BYTES): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError("invalid_request", "Content-Type must be application/json.");
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) throw tooBig(maxBytes);

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooBig(maxBytes);
      }
      chunks.push(value);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ApiError("invalid_request", "The request body is not valid JSON.");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ApiError("invalid_request", "The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}

function tooBig(maxBytes: number) {
  return new ApiError("invalid_request", `The request body must be at most ${Math.floor(maxBytes / 1024)} KB.`);
}
