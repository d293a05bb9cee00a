// POST /api/generate – generate images from a prompt (and, in 1.2, from an image and mask), sync or as a job.

import { DEFAULT_OUTPUT_FORMAT, DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { type GenerateInput, generateImages } from "@/lib/engines/generate";
import { generateBody } from "@/lib/features/generate/answer";
import { generateFingerprint } from "@/lib/features/generate/fingerprint";
import { checkGenerate, generateDeps, prepareWork, settleBatch } from "@/lib/features/generate/flow";
import { isMultipart, parseGenerateForm, parseGenerateJson } from "@/lib/features/generate/parse";
import { acceptJob, asyncModeOf } from "@/lib/features/jobs/async";
import { runSync } from "@/lib/features/jobs/sync";
import { taskOf } from "@/lib/features/jobs/work";
import { keepAlive } from "@/lib/http/keep-alive";
import { readUploadInOrder } from "@/lib/http/read-upload";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

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

    const work = await prepareWork(svc, checked, signal);
    const task = taskOf(svc, { kind: "generate", input: work, uses12, usage, requestId, origin, caller });
    if (mode.async) {
      const job = await acceptJob(svc, { kind: "generate", caller, quota, webhookUrl: mode.webhookUrl, origin }, task);
      heldByJob = true;
      keepAlive(job.done.finally(submission.release));
      return job.response;
    }
    if (svc.tier.kind !== "inline") return await runSync(svc, { kind: "generate", caller, quota, signal }, task);

    const deps = generateDeps(svc, { requestId, origin }, checked.records);
    const batch = await generateImages(work, { ...deps, signal, onImagesStarted: quota.markStarted });
    return generateBody(work, batch, await settleBatch(quota, batch), uses12);
  } finally {
    if (!heldByJob) submission.release();
  }
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
