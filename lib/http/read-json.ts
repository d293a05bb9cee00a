// Reads a JSON request body with a hard size cap, so a huge body is refused without being buffered, and within the
// uploads' idle and total deadlines, so a body that stalls or trickles holds no request open for long (408).
import { ApiError } from "@/lib/schemas/api-error";
import { getServices } from "@/lib/services";

export const MAX_JSON_BYTES = 64 * 1024;

/** How long a body may make no progress, and take in all (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS by default). */
export type BodyDeadlines = { idleTimeoutMs: number; timeoutMs: number };

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

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    const startedAt = Date.now();
    for (;;) {
      const { done, value } = await readWithin(reader, deadlines, startedAt);
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

/** The next chunk, or 408 request_timeout (the body dropped) once it makes no progress or runs out of time. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  { idleTimeoutMs, timeoutMs }: BodyDeadlines,
  startedAt: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const totalLeft = timeoutMs - (Date.now() - startedAt);
  const idle = idleTimeoutMs <= totalLeft;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        const seconds = `${Math.round((idle ? idleTimeoutMs : timeoutMs) / 100) / 10} s`;
        reject(
          new ApiError(
            "request_timeout",
            idle
              ? `The request body made no progress for ${seconds}.`
              : `The request body took longer than ${seconds}.`,
          ),
        );
      },
      Math.max(0, Math.min(idleTimeoutMs, totalLeft)),
    );
  });
  try {
    return await Promise.race([reader.read(), expired]);
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
