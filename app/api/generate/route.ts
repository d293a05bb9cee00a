// POST /api/generate – generate an image from a prompt.
import { assertPromptAllowed } from "@/lib/api/filter-prompt";
import { recordDepsFor } from "@/lib/api/image-records";
import { parseGenerate } from "@/lib/api/parse-generate";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { generateImage } from "@/lib/engines/generate";
import type { GenerateResponse } from "@/lib/schemas/generate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for a provider chain (GENERATION_TIMEOUT_MS per route); ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("generate", async ({ req, requestId, caller, svc, quota, signal, origin }) => {
  const { negative_prompt, ...request } = await parseGenerate(req);
  const input = { ...request, negativePrompt: negative_prompt };
  assertPromptAllowed(input);
  const usage = await quota.take();

  const image = await generateImage(input, {
    requestId,
    signal,
    origin,
    storage: svc.storage,
    queue: svc.queues.generate,
    onStart: quota.markStarted,
    ...recordDepsFor(svc, caller), // image library: the record stored with the file
  });

  const body: GenerateResponse = {
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
  return body;
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
