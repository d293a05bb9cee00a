// The work of the three /v1 Images endpoints, on the same pipeline as /api/generate: checks before quota, the
// Idempotency-Key, one unit per image, the edit decoded after the quota, then the images or a stream of events.
// Plain arguments: the /v1 routes answer what it returns (./answer.ts), and any other entry point can call it.
import sharp from "sharp";
import { MODELS } from "@/lib/catalog/models";
import { DEFAULT_OUTPUT } from "@/lib/catalog/output-formats";
import { type GenerateDeps, type GeneratedBatch, type GenerateInput, generateImages } from "@/lib/engines/generate";
import { generateDeps } from "@/lib/features/generate/deps";
import { checkGenerate, prepareWork, settleBatch } from "@/lib/features/generate/flow";
import type { FlowContext } from "@/lib/features/jobs/flow-call";
import { runSync } from "@/lib/features/jobs/sync";
import { taskOf } from "@/lib/features/jobs/work";
import { encodeOutput } from "@/lib/images/encode";
import { readImageBytes } from "@/lib/images/library";
import type { Quota } from "@/lib/quota/ledger";
import type { GenerateResponse } from "@/lib/schemas/generate";
import type { Services } from "@/lib/services";
import { completedEvent, imagesBody, partialImageEvent } from "./answer";
import type { AnswerShape, ImagesRequest } from "./parse";

/** What the flow needs of the request's context: the caller, its quota and key, and where it runs. */
export type ImagesContext = FlowContext;

type StreamedShape = AnswerShape & { kind: "generations" | "edits" };
export type ImagesEvent = { type: string };

/**
 * The flow's outcome: the body to answer (or a replay), or a stream to run once its answer is open. `run` sends
 * each partial image, resolves with the completed image's event, and releases the upload whatever happens.
 */
export type ImagesOutcome =
  | { kind: "body"; body: Response | Record<string, unknown> }
  | {
      kind: "stream";
      run: (send: (event: ImagesEvent) => void, cancel: AbortSignal) => Promise<ImagesEvent>;
    };

export async function runImages(at: ImagesContext, request: ImagesRequest): Promise<ImagesOutcome> {
  const { svc, caller, quota, idempotency, requestId, origin } = at;
  let streaming = false;
  try {
    const checked = await checkGenerate(svc, caller, quota, request.order);
    const replay = await idempotency.begin(request.fingerprint);
    if (replay) return { kind: "body", body: replay };
    const usage = await quota.take(request.order.input.n ?? 1);

    const work = await prepareWork(svc, checked, at.signal);
    const stream = request.stream;
    if (svc.tier.kind !== "inline") {
      // Through the work tier: the same job as /api/generate's, its images read back for b64_json. A stream gets the
      // completed event only: the engine's previews stay on the worker that runs the job.
      const throughTier = (signal: AbortSignal) => batchThroughTier(at, work, usage, signal);
      if (!stream) return { kind: "body", body: imagesBody(request.answer, await throughTier(at.signal)) };
      streaming = true;
      return {
        kind: "stream",
        run: async (_send, cancel) => {
          try {
            const batch = await throughTier(AbortSignal.any([at.signal, cancel]));
            return completedEvent(request.answer as StreamedShape, batch.images[0]);
          } finally {
            request.release();
          }
        },
      };
    }
    const deps = generateDeps(svc, { requestId, origin }, checked.records);
    if (stream) {
      streaming = true;
      return {
        kind: "stream",
        run: (send, cancel) => streamImage(at, { ...request, stream }, work, deps, send, cancel),
      };
    }
    const batch = await generateImages(work, { ...deps, signal: at.signal, onImagesStarted: quota.markStarted });
    await settleBatch(quota, batch);
    return { kind: "body", body: imagesBody(request.answer, batch) };
  } finally {
    // A stream holds the upload until its work ends.
    if (!streaming) request.release();
  }
}

/** Runs the work as a job of the work tier, as /api/generate's synchronous requests do, and waits for its images. */
async function batchThroughTier(
  at: ImagesContext,
  work: GenerateInput,
  usage: Awaited<ReturnType<Quota["take"]>>,
  signal: AbortSignal,
): Promise<GeneratedBatch> {
  const { svc, caller, quota, requestId, origin } = at;
  const task = taskOf(svc, { kind: "generate", input: work, uses12: true, usage, requestId, origin, caller });
  const body = await runSync(svc, { kind: "generate", caller, quota, signal }, task);
  return batchOfBody(svc, body as GenerateResponse);
}

/** A generate body's images with their bytes, as the in-process work hands them to the /v1 answer. */
async function batchOfBody(svc: Services, body: GenerateResponse): Promise<GeneratedBatch> {
  const listed = body.images ?? [body];
  const images = await Promise.all(
    listed.map(async (image) => ({
      id: image.id ?? "",
      url: image.url,
      width: image.width ?? 0,
      height: image.height ?? 0,
      seed: image.seed,
      engine: body.engine ?? "",
      ai: body.ai ?? false,
      expiresAt: image.expires_at ?? null,
      deleteToken: image.delete_token ?? "",
      bytes: await readImageBytes(svc.storage, image.id ?? "", Number.MAX_SAFE_INTEGER),
    })),
  );
  return { images, failed: 0 };
}

type StreamRequest = ImagesRequest & { stream: { partialImages: number } };

/**
 * Runs the work of a streamed request: a partial image each time the engine offers a preview (up to the number asked
 * for, spread over the progress), then the completed image's event.
 */
async function streamImage(
  at: ImagesContext,
  request: StreamRequest,
  work: GenerateInput,
  deps: Omit<GenerateDeps, "signal">,
  send: (event: ImagesEvent) => void,
  cancel: AbortSignal,
): Promise<ImagesEvent> {
  const shape = request.answer as StreamedShape;
  const partials = partialImages(request.stream.partialImages, work, shape, send);
  try {
    const batch = await generateImages(work, {
      ...deps,
      signal: AbortSignal.any([at.signal, cancel]),
      onImagesStarted: at.quota.markStarted,
      onProgress: partials.onProgress,
      onPreview: partials.onPreview,
    });
    await partials.settled();
    await settleBatch(at.quota, batch);
    return completedEvent(shape, batch.images[0]);
  } finally {
    request.release();
  }
}

/**
 * Forwards up to `wanted` of the engine's previews as partial images, at the output's size and format: the i-th once
 * the progress passes i/(wanted+1), or as they come when the engine reports no progress.
 */
function partialImages(wanted: number, work: GenerateInput, shape: StreamedShape, send: (event: ImagesEvent) => void) {
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
