// The /v1 Images routes' answer to the flow's outcome: the body, or an event stream while the work runs.
import { openaiErrorBody } from "@/lib/http/openai/dialect";
import { type RouteResult, StreamedAnswer } from "@/lib/http/with-api";
import { toApiError } from "@/lib/schemas/api-error";
import { sseEvent, sseStream } from "@/lib/streams/sse";
import { sseFrame } from "./answer";
import type { ImagesOutcome } from "./flow";

/**
 * The /v1 answer of the Images flow: its body, or server-sent events at once while the work runs (the partial
 * images, then the completed image, or an error event).
 */
export function answerImages(outcome: ImagesOutcome, requestId: string): RouteResult {
  if (outcome.kind === "body") return outcome.body;
  const cancel = new AbortController();
  const stream = sseStream(() => cancel.abort());
  stream.keepAlive();

  const settled = (async (): Promise<{ replay: string } | { error: unknown }> => {
    try {
      const frame = sseFrame(await outcome.run((event) => stream.send(sseFrame(event)), cancel.signal));
      stream.send(frame);
      return { replay: frame };
    } catch (err) {
      const { body: error } = openaiErrorBody(toApiError(err, requestId));
      stream.send(sseEvent("error", { type: "error", ...error }));
      return { error: err };
    } finally {
      stream.close();
    }
  })();
  const response = new Response(stream.body, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
  });
  return new StreamedAnswer(response, settled);
}
