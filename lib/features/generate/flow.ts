// The steps every route that generates takes between parsing its request and answering, so /api/generate and the
// OpenAI-compatible /v1 routes run one pipeline: the content filter, the route check and the library image before
// any quota; the edit's decoding after it; and the units of images that failed given back.
import type { Caller } from "@/lib/auth/types";
import { MODELS } from "@/lib/catalog/models";
import { DEFAULT_OUTPUT_FORMAT, DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { inputNeeded } from "@/lib/catalog/route-inputs";
import { type GeneratedBatch, type GenerateInput, generateImages, prepareEdit } from "@/lib/engines/generate";
import { recordDepsFor } from "@/lib/features/images/records";
import { asyncModeOf } from "@/lib/features/jobs/async";
import type { FlowAnswer, FlowCall } from "@/lib/features/jobs/flow-call";
import { handOff } from "@/lib/features/jobs/hand-off";
import { taskOf } from "@/lib/features/jobs/work";
import { findOwnImage, type RecordDeps, readImageBytes } from "@/lib/images/library";
import { probeImage } from "@/lib/images/probe";
import type { Quota } from "@/lib/quota/ledger";
import type { Usage } from "@/lib/quota/types";
import type { Services } from "@/lib/services";
import { pixelBytesOf } from "@/lib/work/pixel-budget";
import { generateBody } from "./answer";
import { generateDeps } from "./deps";
import { assertPromptAllowed } from "./filter-prompt";
import { generateFingerprint } from "./fingerprint";
import type { GenerateSubmission } from "./parse";

/**
 * A parsed /api generate request (or an MCP tool's), from its checks to its answer: the checks before any quota,
 * the Idempotency-Key, the units, then a job, a wait for the work tier, or the work done here.
 */
export async function runGenerate(call: FlowCall, submission: GenerateSubmission): Promise<FlowAnswer> {
  const { svc, caller, quota, idempotency, requestId, origin, signal } = call;
  const { request, image, mask, strength, uses12 } = submission;
  const { negative_prompt, webhook_url, n = 1, output_format, output_quality, image_id, ...fields } = request;
  const { strength: _strength, ...base } = fields;
  const output = {
    format: output_format ?? DEFAULT_OUTPUT_FORMAT,
    quality: output_quality ?? DEFAULT_OUTPUT_QUALITY,
  };
  const input: GenerateInput = { ...base, negativePrompt: negative_prompt, n, output };
  // Before any quota: the filter, a model with no route for the input, and someone else's image_id.
  const checked = await checkGenerate(svc, caller, quota, {
    input,
    image,
    mask,
    imageId: image_id,
    strength,
    ratioGiven: submission.ratioGiven,
  });
  const mode = asyncModeOf(call.prefersAsync, caller, webhook_url, svc.config.webhookAllowHosts);
  const edit = checked.hasImage ? { image, mask, imageId: image_id, strength } : undefined;
  const replay = await idempotency.begin(generateFingerprint({ input, mode, edit }));
  if (replay) return { replay };
  const usage = await quota.take(n);

  const work = await prepareWork(svc, checked, signal);
  const task = taskOf(svc, { kind: "generate", input: work, uses12, usage, requestId, origin, caller });
  const handed = await handOff(call, "generate", mode, task);
  if (handed) return handed;

  const deps = generateDeps(svc, { requestId, origin }, checked.records);
  const batch = await generateImages(work, { ...deps, signal, onImagesStarted: quota.markStarted });
  return { body: generateBody(work, batch, await settleBatch(quota, batch), uses12) };
}

/** A parsed generate request, whatever API it came through. */
export type GenerateOrder = {
  /** What to make; the edit is decoded later, once the quota is taken. */
  input: GenerateInput;
  /** The uploaded starting image and mask, not yet decoded. */
  image?: Buffer;
  mask?: Buffer;
  /** Instead of an upload: an image in the caller's library. */
  imageId?: string;
  strength: number;
  /** True when the caller chose the ratio (it then wins over an image's own aspect). */
  ratioGiven: boolean;
};

export type CheckedOrder = {
  order: GenerateOrder;
  hasImage: boolean;
  /** The library image the edit starts from. */
  sourceId?: string;
  records: RecordDeps;
};

/**
 * The checks before any quota is taken: the content filter (422), a model with no route for the input (400
 * `unsupported_input`) and someone else's image_id (404).
 */
export async function checkGenerate(
  svc: Services,
  caller: Caller,
  quota: Pick<Quota, "note">,
  order: GenerateOrder,
): Promise<CheckedOrder> {
  const { input, image, mask, imageId } = order;
  quota.note({ model: input.model });
  assertPromptAllowed(input);
  const hasImage = image !== undefined || imageId !== undefined;
  svc.engines.assertTakes(input.model, inputNeeded({ image: hasImage, mask }));
  const records = recordDepsFor(svc, caller);
  const source = imageId === undefined ? undefined : await findOwnImage(imageId, records.owner, records);
  return { order, hasImage, sourceId: source?.id, records };
}

/**
 * The work to run, once the quota is taken: decoding costs CPU and memory, so an edit's image and mask are decoded
 * only now (a failure gives the units back through the wrapper).
 */
export async function prepareWork(svc: Services, checked: CheckedOrder, signal?: AbortSignal): Promise<GenerateInput> {
  const { order, hasImage, sourceId } = checked;
  if (!hasImage) return order.input;
  // Decoding holds the image's pixels in memory: a bounded few at once, a few waiting, and 503 busy beyond; the
  // pixels themselves come from the process's pixel budget, which enhancements and uploads share.
  const edit = await svc.queues.decode.run(async () => {
    const bytes = order.image ?? (await readImageBytes(svc.storage, sourceId ?? "", svc.config.upload.maxBytes));
    const hold = await svc.pixels.take(await editPixelsOf(bytes, order), signal);
    try {
      return await prepareEdit(
        { image: bytes, mask: order.mask, strength: order.strength, sourceImageId: sourceId },
        { model: order.input.model, ratio: order.ratioGiven ? order.input.ratio : undefined },
        svc.config.upload.maxPixels,
        svc.engines,
      );
    } finally {
      hold.release();
    }
  }, signal);
  return { ...order.input, edit };
}

/**
 * The pixels an edit's decode holds: its image and mask as decoded (from their headers), and the image at the
 * model's largest output size. A header that does not read counts nothing: prepareEdit refuses it with its own error.
 */
async function editPixelsOf(image: Buffer, order: GenerateOrder): Promise<number> {
  const decoded = async (bytes: Buffer | undefined) =>
    bytes ? await probeImage(bytes, Number.POSITIVE_INFINITY).then(pixelBytesOf, () => 0) : 0;
  const largest = Math.max(...Object.values(MODELS[order.input.model].sizes).map((s) => s.width * s.height));
  return (await decoded(image)) + (await decoded(order.mask)) + largest * 3;
}

/** Gives back the units of the images that failed and notes what was made; the usage after. */
export async function settleBatch(quota: Quota, batch: GeneratedBatch): Promise<Usage> {
  const settled = await quota.giveBack(batch.failed);
  quota.note({ engine: batch.images[0].engine, made: batch.images.length, failedImages: batch.failed });
  return settled;
}
