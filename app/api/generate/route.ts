// POST /api/generate – generate an image from a prompt, synchronously or as an async job.
import { acceptJob, asyncModeOf, keepAlive } from "@/lib/api/async";
import { assertPromptAllowed } from "@/lib/api/filter-prompt";
import { recordDepsFor } from "@/lib/api/image-records";
import { parseGenerate } from "@/lib/api/parse-generate";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { type GeneratedResult, type GenerateInput, generateImage } from "@/lib/engines/generate";
import type { Usage } from "@/lib/quota/types";
import type { GenerateResponse } from "@/lib/schemas/generate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for a provider chain (GENERATION_TIMEOUT_MS per route), and for accepted jobs run after the
// response; ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("generate", async ({ req, requestId, caller, svc, quota, idempotency, signal, origin }) => {
  const { negative_prompt, webhook_url, ...request } = await parseGenerate(req);
  const input: GenerateInput = { ...request, negativePrompt: negative_prompt };
  quota.note({ model: input.model });
  assertPromptAllowed(input);
  const mode = asyncModeOf(req, caller, webhook_url, svc.config.webhookAllowHosts);
  const replay = await idempotency.begin(["generate", input, mode]);
  if (replay) return replay;
  const usage = await quota.take();

  const deps = {
    requestId,
    origin,
    engines: svc.engines,
    storage: svc.storage,
    queue: svc.queues.generate,
    ...recordDepsFor(svc, caller),
  };
  if (mode.async) {
    const job = await acceptJob(
      svc,
      { kind: "generate", caller, quota, webhookUrl: mode.webhookUrl, origin },
      async ({ signal, begin, onQueued, onProgress }) =>
        bodyOf(input, await generateImage(input, { ...deps, signal, onStart: begin, onQueued, onProgress }), usage),
    );
    keepAlive(job.done);
    return job.response;
  }

  const image = await generateImage(input, { ...deps, signal, onStart: quota.markStarted });
  quota.note({ engine: image.engine });
  return bodyOf(input, image, usage);
});

function bodyOf(input: GenerateInput, image: GeneratedResult, usage: Usage): GenerateResponse {
  return {
    success: true,
    url: image.url,
    model: input.model,
    ratio: input.ratio,
    usage: usage.used,
    remaining: usage.remaining,
    id: image.id,
    style: input.style,
    width: image.width,
    height: image.height,
    seed: image.seed,
    engine: image.engine,
    ai: image.ai,
    // Image library: when the image goes, and the token that deletes it.
    expires_at: image.expiresAt,
    delete_token: image.deleteToken,
  };
}

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
