// The work of the three /v1 Images endpoints, on the same pipeline as /api/generate: checks before quota, the
// Idempotency-Key, one unit per image, the edit decoded after the quota, then an answer or an event stream.
import sharp from "sharp";
import { checkGenerate, generateDeps, prepareWork, settleBatch } from "@/lib/api/generate-flow";
import { type RouteContext, type RouteResult, StreamedAnswer } from "@/lib/api/with-api";
import { MODELS } from "@/lib/catalog/models";
import { DEFAULT_OUTPUT } from "@/lib/catalog/output-formats";
import { type GenerateDeps, type GenerateInput, generateImages } from "@/lib/engines/generate";
import { encodeOutput } from "@/lib/images/encode";
import { toApiError } from "@/lib/schemas/api-error";
import { completedEvent, imagesBody, partialImageEvent, sseFrame } from "./answers";
import { openaiErrorBody } from "./dialect";
import type { AnswerShape, ImagesRequest } from "./requests";

/** A comment line this often keeps proxies from closing a quiet stream while the engine works. */
const KEEPALIVE_MS = 15_000;

export async function runImages(ctx: RouteContext, request: ImagesRequest): Promise<RouteResult> {
  const { svc, caller, quota, idempotency, requestId, origin } = ctx;
  let streaming = false;
  try {
    const checked = await checkGenerate(svc, caller, quota, request.order);
    const replay = await idempotency.begin(request.fingerprint);
    if (replay) return replay;
    await quota.take(request.order.input.n ?? 1);

    const work = await prepareWork(svc, checked);
    const deps = generateDeps(svc, { requestId, origin }, checked.records);
    if (request.stream) {
      streaming = true;
      return streamImage(ctx, { ...request, stream: request.stream }, work, deps);
    }
    const batch = await generateImages(work, { ...deps, signal: ctx.signal, onStart: quota.markStarted });
    await settleBatch(quota, batch);
    return imagesBody(request.answer, batch);
  } finally {
    // A stream holds the upload until its work ends.
    if (!streaming) request.release();
  }
}

type StreamRequest = ImagesRequest & { stream: { partialImages: number } };

/**
 * Answers with server-sent events at once, then runs the work: a partial image each time the engine offers a preview
 * (up to the number asked for, spread over the progress), then the completed image, or an error event.
 */
function streamImage(
  ctx: RouteContext,
  request: StreamRequest,
  work: GenerateInput,
  deps: Omit<GenerateDeps, "signal">,
): StreamedAnswer {
  const { quota, requestId } = ctx;
  const shape = request.answer as AnswerShape & { kind: "generations" | "edits" };
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
  const partials = partialImages(request.stream.partialImages, work, shape, (event) => write(sseFrame(event)));

  const settled = (async (): Promise<{ replay: string } | { error: unknown }> => {
    try {
      const batch = await generateImages(work, {
        ...deps,
        signal: AbortSignal.any([ctx.signal, cancel.signal]),
        onStart: quota.markStarted,
        onProgress: partials.onProgress,
        onPreview: partials.onPreview,
      });
      await partials.settled();
      await settleBatch(quota, batch);
      const frame = sseFrame(completedEvent(shape, batch.images[0]));
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
      request.release();
    }
  })();
  const response = new Response(body, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
  });
  return new StreamedAnswer(response, settled);
}

/**
 * Forwards up to `wanted` of the engine's previews as partial images, at the output's size and format: the i-th once
 * the progress passes i/(wanted+1), or as they come when the engine reports no progress.
 */
function partialImages(
  wanted: number,
  work: GenerateInput,
  shape: AnswerShape & { kind: "generations" | "edits" },
  send: (event: { type: string }) => void,
) {
  const size = work.edit ? work.edit.input : MODELS[work.model].sizes[work.ratio];
  let fraction: number | null = null;
  let sent = 0;
  let chain: Promise<void> = Promise.resolve();
  return {
    onProgress: (progress: { fraction: number | null }) => {
      fraction = progress.fraction;
    },
    onPreview: (preview: Buffer) => {
      if (sent >= wanted || (fraction !== null && fraction < (sent + 1) / (wanted + 1))) return;
      const index = sent++;
      chain = chain.then(async () => {
        try {
          const png = await sharp(preview).resize(size.width, size.height, { fit: "fill" }).png().toBuffer();
          const bytes = await encodeOutput(png, work.output ?? DEFAULT_OUTPUT);
          send(partialImageEvent(shape, { bytes, width: size.width, height: size.height }, index));
        } catch {
          // A preview that cannot be read is skipped: the final image is what counts.
        }
      });
    },
    settled: () => chain,
  };
}
