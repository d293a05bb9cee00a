// POST /api/enhance – enhance and upscale an uploaded photo, synchronously or as an async job.

import { DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { type EnhanceInput, enhanceImage } from "@/lib/enhance/enhance";
import { enhanceBody } from "@/lib/features/enhance/answer";
import { enhanceDeps } from "@/lib/features/enhance/flow";
import { parseEnhance, servedEnhanceModes } from "@/lib/features/enhance/parse";
import { recordDepsFor } from "@/lib/features/images/records";
import { acceptJob, asyncModeOf } from "@/lib/features/jobs/async";
import { runSync } from "@/lib/features/jobs/sync";
import { taskOf } from "@/lib/features/jobs/work";
import { keepAlive } from "@/lib/http/keep-alive";
import { readUploadInOrder } from "@/lib/http/read-upload";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { sha256 } from "@/lib/idempotency/idempotency";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for accepted jobs run after the response; ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("enhance", async ({ req, requestId, caller, svc, quota, idempotency, signal, origin }) => {
  const served = servedEnhanceModes(svc.config);
  const upload = parseEnhance(await readUploadInOrder({ req, svc, caller, quota, idempotency }), served);
  let heldByJob = false;
  quota.note({ model: upload.model });
  try {
    const { bytes, webhookUrl, release: _release, ...options } = upload;
    const input: EnhanceInput = { bytes, ...options };
    const mode = asyncModeOf(req, caller, webhookUrl, svc.config.webhookAllowHosts);
    // A 1.1 request keeps its 1.1 fingerprint; a chosen format is part of the request.
    const { output, ...rest } = options;
    const isDefault = output.format === "png" && output.quality === DEFAULT_OUTPUT_QUALITY;
    const replay = await idempotency.begin(["enhance", sha256(bytes), isDefault ? rest : options, mode]);
    if (replay) return replay;
    const usage = await quota.take();

    const task = taskOf(svc, { kind: "enhance", input, usage, requestId, origin, caller });
    if (mode.async) {
      const job = await acceptJob(svc, { kind: "enhance", caller, quota, webhookUrl: mode.webhookUrl, origin }, task);
      // The job holds the upload's bytes until it settles.
      heldByJob = true;
      keepAlive(job.done.finally(upload.release));
      return job.response;
    }
    if (svc.tier.kind !== "inline") return await runSync(svc, { kind: "enhance", caller, quota, signal }, task);

    const deps = enhanceDeps(svc, { requestId, origin }, recordDepsFor(svc, caller));
    const image = await enhanceImage(input, { ...deps, signal, onStart: quota.markStarted });
    quota.note({ engine: image.engine });
    return enhanceBody(input, image, usage);
  } finally {
    if (!heldByJob) upload.release();
  }
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
