// The /v1 Images routes' answer to the flow's outcome: the body, or an event stream while the work runs.
import { openaiErrorBody } from "@/lib/http/openai/dialect";
import { type RouteResult, StreamedAnswer } from "@/lib/http/with-api";
import { toApiError } from "@/lib/schemas/api-error";
import { sseFrame } from "./answer";
import type { ImagesOutcome } from "./flow";

/** A comment line this often keeps proxies from closing a quiet stream while the engine works. */
const KEEPALIVE_MS = 15_000;

/**
 * The /v1 answer of the Images flow: its body, or server-sent events at once while the work runs (the partial
 * images, then the completed image, or an error event).
 */
export function answerImages(outcome: ImagesOutcome, requestId: string): RouteResult {
  if (outcome.kind === "body") return outcome.body;
  const cancel = new AbortController();
  const encoder = new TextEncoder();
  let open = true;
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      out = controller;
    },
    cancel: () => {
      open = false;
      cancel.abort();
    },
  });
  const write = (text: string) => {
    if (open) out.enqueue(encoder.encode(text));
  };
  const keepalive = setInterval(() => write(": keep-alive\n\n"), KEEPALIVE_MS);

  const settled = (async (): Promise<{ replay: string } | { error: unknown }> => {
    try {
      const frame = sseFrame(await outcome.run((event) => write(sseFrame(event)), cancel.signal));
      write(frame);
      return { replay: frame };
    } catch (err) {
      const { body: error } = openaiErrorBody(toApiError(err, requestId));
      write(`event: error\ndata: ${JSON.stringify({ type: "error", ...error })}\n\n`);
      return { error: err };
    } finally {
      clearInterval(keepalive);
      if (open) {
        open = false;
        out.close();
      }
    }
  })();
  const response = new Response(body, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
  });
  return new StreamedAnswer(response, settled);
}
