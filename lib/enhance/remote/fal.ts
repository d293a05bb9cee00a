// fal endpoints as enhance routes, through fal's queue API: submit, poll the status URL, read the result from the
// response URL, cancel through the cancel URL when the caller gives up. The URLs are the ones fal answers, which
// the provider's host policy checks (queue.fal.run, or the origin of FAL_BASE_URL).
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { cancelQuietly, pollBounded } from "@/lib/engines/providers/poll";
import type { EnhanceRoute, EnhanceRouteJob } from "@/lib/enhance/routes/types";
import { baseOf, download, failureOf, jsonOf, pngDataUri, type RemoteRouteDeps, withDeadline } from "./shared";

/** The queue's host; FAL_BASE_URL's default for generation is the synchronous https://fal.run, which it replaces. */
const DEFAULT_QUEUE_URL = "https://queue.fal.run";
const SYNC_URL = "https://fal.run";
const POLL_INTERVAL_MS = 500;

type KnownEndpoint = {
  generative: boolean;
  input: (job: EnhanceRouteJob, image: string) => Record<string, unknown>;
};

/** The named endpoints' inputs, from each endpoint's input schema on fal. */
export const FAL_ENHANCE_ENDPOINTS: Record<string, KnownEndpoint> = {
  // image_url, scale (1–8), model (the RealESRGAN checkpoint), face (GFPGAN), output_format.
  "fal-ai/esrgan": {
    generative: false,
    input: (job, image) => ({
      image_url: image,
      scale: job.scale,
      model: job.scale === 2 ? "RealESRGAN_x2plus" : "RealESRGAN_x4plus",
      face: job.mode === "faces",
      output_format: "png",
    }),
  },
  // image_url, upscale_factor (4 only), overlapping_tiles, checkpoint.
  "fal-ai/aura-sr": {
    generative: false,
    input: (_job, image) => ({ image_url: image, upscale_factor: 4, overlapping_tiles: true, checkpoint: "v2" }),
  },
  // image_url, prompt, upscale_factor (1–4), creativity (0–1), resemblance, enable_safety_checker: diffusion-based.
  "fal-ai/clarity-upscaler": {
    generative: true,
    input: (job, image) => ({
      image_url: image,
      upscale_factor: job.scale,
      creativity: Math.round(Math.min(1, Math.max(0, job.strength)) * 100) / 100,
      enable_safety_checker: true,
      ...(job.prompt?.trim() ? { prompt: job.prompt.trim() } : {}),
    }),
  },
  // image_url, fidelity (0 = quality … 1 = identity), upscale_factor, face_upscale.
  "fal-ai/codeformer": {
    generative: false,
    input: (job, image) => ({
      image_url: image,
      // strength is the restorer's weight: 1 restores fully (fidelity 0), 0 keeps the face as it is.
      fidelity: Math.round((1 - Math.min(1, Math.max(0, job.strength))) * 100) / 100,
      upscale_factor: job.scale,
      face_upscale: true,
    }),
  },
};

const GENERIC_INPUT = (job: EnhanceRouteJob, image: string) => ({ image_url: image, scale: job.scale });

type QueueAnswer = { request_id?: unknown; status_url?: unknown; response_url?: unknown; cancel_url?: unknown };

/** `fal:<endpoint>`, e.g. `fal:fal-ai/esrgan`. */
export function createFalEnhanceRoute(modelId: string, deps: RemoteRouteDeps): EnhanceRoute {
  if (!/^[\w.-]+\/[\w./-]+$/.test(modelId) || modelId.includes(".."))
    throw new Error(`fal: "${modelId}" is not an endpoint id such as fal-ai/esrgan`);
  const known = FAL_ENHANCE_ENDPOINTS[modelId];
  // An operator's FAL_BASE_URL (a proxy) serves the queue too; fal's own sync host maps to its queue host.
  const configured = baseOf(deps.baseUrl, DEFAULT_QUEUE_URL);
  const base = configured === SYNC_URL ? DEFAULT_QUEUE_URL : configured;
  const auth = { Authorization: `Key ${deps.apiKey}` };
  const id = `fal:${modelId}`;
  return {
    id,
    ai: true,
    generative: known?.generative ?? false,
    run: (job) =>
      withDeadline(id, job.signal, deps.timeoutMs, async (signal) => {
        const input = (known?.input ?? GENERIC_INPUT)(job, pngDataUri(job.image));
        const res = await deps.fetch(`${base}/${modelId}`, {
          method: "POST",
          signal,
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify(input),
        });
        if (!res.ok) throw await failureOf("fal", res, isModeration);
        const queued = (await jsonOf("fal", res)) as QueueAnswer;
        const urls = queueUrls(queued);
        const onAbort = () => void cancelQuietly(deps.fetch, urls.cancel, { method: "PUT", headers: auth });
        signal.addEventListener("abort", onAbort, { once: true });
        try {
          await waitForCompletion(urls.status, auth, deps, job, signal);
        } finally {
          signal.removeEventListener("abort", onAbort);
        }
        const result = await deps.fetch(urls.response, { method: "GET", signal, headers: auth });
        if (!result.ok) throw await failureOf("fal", result, isModeration);
        const body = await jsonOf("fal", result);
        if (flaggedNsfw(body)) throw new ModerationError(`${id}: has_nsfw_concepts`);
        return { image: await download("fal", deps.fetch, imageUrlOf(body), signal) };
      }),
  };
}

/** Polls the status URL until COMPLETED; the route's deadline bounds the loop. */
function waitForCompletion(
  statusUrl: string,
  auth: Record<string, string>,
  deps: RemoteRouteDeps,
  job: EnhanceRouteJob,
  signal: AbortSignal,
): Promise<true> {
  const bounds = { intervalMs: deps.pollIntervalMs ?? POLL_INTERVAL_MS, timeoutMs: deps.timeoutMs, signal };
  return pollBounded("fal", bounds, async () => {
    const res = await deps.fetch(statusUrl, { method: "GET", signal, headers: auth });
    if (!res.ok) throw await failureOf("fal status", res);
    const body = await jsonOf("fal", res);
    if (body.status === "COMPLETED") return true;
    if (body.status !== "IN_QUEUE" && body.status !== "IN_PROGRESS")
      throw new ProviderError("malformed", `fal: unknown queue status ${String(body.status).slice(0, 40)}`);
    const position = typeof body.queue_position === "number" ? `, position ${body.queue_position}` : "";
    job.onProgress?.({ fraction: null, stage: `fal: ${body.status === "IN_QUEUE" ? `queued${position}` : "running"}` });
    return undefined;
  });
}

function queueUrls(answer: QueueAnswer): { status: string; response: string; cancel: string } {
  const { status_url, response_url, cancel_url } = answer;
  if (typeof status_url !== "string" || typeof response_url !== "string" || typeof cancel_url !== "string")
    throw new ProviderError("malformed", "fal: the queue answered without status, response and cancel URLs");
  return { status: status_url, response: response_url, cancel: cancel_url };
}

/** Every named endpoint answers `{ image: { url, … } }`; a list of images is taken too. */
function imageUrlOf(body: Record<string, unknown>): unknown {
  const image = body.image ?? (Array.isArray(body.images) ? body.images[0] : undefined);
  return image && typeof image === "object" ? (image as { url?: unknown }).url : undefined;
}

function flaggedNsfw(body: Record<string, unknown>): boolean {
  const flags = body.has_nsfw_concepts;
  return Array.isArray(flags) ? flags.includes(true) : flags === true;
}

/** fal answers a refused input with 422 and a content-policy error type. */
function isModeration(status: number, body: string): boolean {
  return status === 422 && /content_policy_violation/.test(body);
}
