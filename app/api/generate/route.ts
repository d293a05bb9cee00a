// POST /api/generate – generate images from a prompt (and, in 1.2, from an image and mask), sync or as a job.

import { DEFAULT_OUTPUT_FORMAT, DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { type GeneratedBatch, type GenerateInput, generateImages } from "@/lib/engines/generate";
import { generateFingerprint } from "@/lib/features/generate/fingerprint";
import { checkGenerate, generateDeps, prepareWork, settleBatch } from "@/lib/features/generate/flow";
import { isMultipart, parseGenerateForm, parseGenerateJson } from "@/lib/features/generate/parse";
import { acceptJob, asyncModeOf } from "@/lib/features/jobs/async";
import { keepAlive } from "@/lib/http/keep-alive";
import { readUploadInOrder } from "@/lib/http/read-upload";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import type { Usage } from "@/lib/quota/types";
import type { GenerateResponse } from "@/lib/schemas/generate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for a provider chain (GENERATION_TIMEOUT_MS per route), and for accepted jobs run after the
// response; ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("generate", async ({ req, requestId, caller, svc, quota, idempotency, signal, origin }) => {
  // An upload's shape is checked and the caller's quota peeked before its body is read.
  const submission = isMultipart(req)
    ? parseGenerateForm(await readUploadInOrder({ req, svc, caller, quota, idempotency }, "image+mask"))
    : await parseGenerateJson(req);
  let heldByJob = false;
  try {
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
    const mode = asyncModeOf(req, caller, webhook_url, svc.config.webhookAllowHosts);
    const edit = checked.hasImage ? { image, mask, imageId: image_id, strength } : undefined;
    const replay = await idempotency.begin(generateFingerprint({ input, mode, edit }));
    if (replay) return replay;
    const usage = await quota.take(n);

    const work = await prepareWork(svc, checked);
    const deps = generateDeps(svc, { requestId, origin }, checked.records);
    if (mode.async) {
      const job = await acceptJob(
        svc,
        { kind: "generate", caller, quota, webhookUrl: mode.webhookUrl, origin },
        async ({ signal, begin, onQueued, onProgress, giveBack }) => {
          const batch = await generateImages(work, { ...deps, signal, onStart: begin, onQueued, onProgress });
          await giveBack(batch.failed, n);
          return bodyOf(work, batch, refunded(usage, batch.failed), uses12);
        },
      );
      heldByJob = true;
      keepAlive(job.done.finally(submission.release));
      return job.response;
    }

    const batch = await generateImages(work, { ...deps, signal, onStart: quota.markStarted });
    return bodyOf(work, batch, await settleBatch(quota, batch), uses12);
  } finally {
    if (!heldByJob) submission.release();
  }
});

/** The usage after `failed` units went back. */
function refunded(usage: Usage, failed: number): Usage {
  return { ...usage, used: usage.used - failed, remaining: usage.remaining + failed };
}

/** The 1.1 body describing the first image; `images` (and the edit's source) when the request used 1.2 fields. */
function bodyOf(input: GenerateInput, batch: GeneratedBatch, usage: Usage, uses12: boolean): GenerateResponse {
  const [first] = batch.images;
  return {
    success: true,
    url: first.url,
    model: input.model,
    ratio: input.edit?.ratio ?? input.ratio,
    usage: usage.used,
    remaining: usage.remaining,
    id: first.id,
    style: input.style,
    width: first.width,
    height: first.height,
    seed: first.seed,
    engine: first.engine,
    ai: first.ai,
    // Image library: when the image goes, and the token that deletes it.
    expires_at: first.expiresAt,
    delete_token: first.deleteToken,
    ...(uses12 && {
      images: batch.images.map((image) => ({
        url: image.url,
        id: image.id,
        seed: image.seed,
        width: image.width,
        height: image.height,
        expires_at: image.expiresAt,
        delete_token: image.deleteToken,
      })),
    }),
    ...(input.edit?.sourceImageId !== undefined && { source_image_id: input.edit.sourceImageId }),
  };
}

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
