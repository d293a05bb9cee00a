// Reads a JSON request body with a hard size cap, so a huge body is refused without being buffered, and within the
// uploads' idle and total deadlines, so a body that stalls or trickles holds no request open for long (408).
import { ApiError } from "@/lib/schemas/api-error";
import { getServices } from "@/lib/services";
import { type BodyDeadlines, watchBody } from "./body-deadlines";
import { discardRefusedBody } from "./discard-body";

export const MAX_JSON_BYTES = 64 * 1024;

export async function readJsonObject(
  req: Request,
  maxBytes = MAX_JSON_BYTES,
  deadlines: BodyDeadlines = getServices().uploads,
): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError("invalid_request", "Content-Type must be application/json.");
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) throw tooBig(maxBytes);

  const chunks = req.body ? await readWithin(req.body, maxBytes, deadlines) : [];
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

/**
 * The body's chunks, read under the deadlines. A deadline that passes answers at once: the rest of the body, the
 * stalled read's included, is left to be dropped in the background.
 */
async function readWithin(body: ReadableStream<Uint8Array>, maxBytes: number, deadlines: BodyDeadlines) {
  const reader = body.getReader();
  let watch: ReturnType<typeof watchBody> | undefined;
  const expired = new Promise<never>((_, reject) => {
    watch = watchBody(deadlines, "request body", reject);
  });
  expired.catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), expired]);
      if (done) return chunks;
      watch?.progress();
      size += value.byteLength;
      if (size > maxBytes) throw tooBig(maxBytes);
      chunks.push(value);
    }
  } catch (err) {
    discardRefusedBody(reader);
    throw err;
  } finally {
    watch?.clear();
  }
}
