// Stability AI's v2beta upscalers as enhance routes: fast (4×, no prompt), conservative (to about 4 MP, steered by
// a prompt) and creative (generative, steered by a prompt and a creativity; asynchronous, so its result is polled).
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { pollBounded } from "@/lib/engines/providers/poll";
import type { EnhanceRoute, EnhanceRouteJob } from "@/lib/enhance/routes/types";
import { baseOf, failureOf, jsonOf, type RemoteRouteDeps, withDeadline } from "./shared";

const DEFAULT_BASE_URL = "https://api.stability.ai";
/** Stability asks that a creative result be polled no more often than every 10 s. */
const CREATIVE_POLL_MS = 10_000;
/** Conservative and creative require a prompt; without one from the caller, they are asked for fidelity. */
const DEFAULT_PROMPT = "a sharp, detailed, high resolution version of this image";

type Endpoint = "fast" | "conservative" | "creative";

/** Each endpoint's fields beyond `image` and `output_format`, from Stability's v2beta upscale reference. */
const ENDPOINTS: Record<Endpoint, { generative: boolean; fields: (job: EnhanceRouteJob) => Record<string, string> }> = {
  fast: { generative: false, fields: () => ({}) },
  conservative: { generative: false, fields: (job) => ({ prompt: promptOf(job) }) },
  creative: {
    generative: true,
    // creativity is 0.1–0.5 on Stability's side; strength 0..1 is how far it may invent.
    fields: (job) => ({ prompt: promptOf(job), creativity: String(round2(0.1 + 0.4 * clamp01(job.strength))) }),
  },
};

/** `stability:fast|conservative|creative`, on STABILITY_BASE_URL (default https://api.stability.ai). */
export function createStabilityEnhanceRoute(modelId: string, deps: RemoteRouteDeps): EnhanceRoute {
  if (!(modelId in ENDPOINTS)) throw new Error(`stability: no upscaler "${modelId}" (fast, conservative or creative)`);
  const endpoint = modelId as Endpoint;
  const base = baseOf(deps.baseUrl, DEFAULT_BASE_URL);
  const auth = { Authorization: `Bearer ${deps.apiKey}` };
  const id = `stability:${endpoint}`;
  return {
    id,
    ai: true,
    generative: ENDPOINTS[endpoint].generative,
    run: (job) =>
      withDeadline(id, job.signal, deps.timeoutMs, async (signal) => {
        const form = new FormData();
        form.append("image", new Blob([new Uint8Array(job.image)], { type: "image/png" }), "image.png");
        form.append("output_format", "png");
        for (const [name, value] of Object.entries(ENDPOINTS[endpoint].fields(job))) form.append(name, value);
        job.onProgress?.({ fraction: null, stage: `${id}: submitted` });
        const res = await deps.fetch(`${base}/v2beta/stable-image/upscale/${endpoint}`, {
          method: "POST",
          signal,
          // fast and conservative answer the image itself; creative answers { id } to poll.
          headers: { ...auth, Accept: endpoint === "creative" ? "application/json" : "image/*" },
          body: form,
        });
        if (endpoint !== "creative") return { image: await readImage(res) };
        if (!res.ok) throw await failureOf("stability", res, isModeration);
        const generation = (await jsonOf("stability", res)).id;
        if (typeof generation !== "string" || !/^[\w-]+$/.test(generation))
          throw new ProviderError("malformed", "stability: creative answered no generation id");
        return { image: await pollCreative(`${base}/v2beta/results/${generation}`, auth, deps, job, signal) };
      }),
  };
}

/** GET the result until it is not 202 (in progress); the route's deadline bounds the loop. */
function pollCreative(
  url: string,
  auth: Record<string, string>,
  deps: RemoteRouteDeps,
  job: EnhanceRouteJob,
  signal: AbortSignal,
): Promise<Buffer> {
  const bounds = { intervalMs: deps.pollIntervalMs ?? CREATIVE_POLL_MS, timeoutMs: deps.timeoutMs, signal };
  return pollBounded("stability:creative", bounds, async () => {
    const res = await deps.fetch(url, { method: "GET", signal, headers: { ...auth, Accept: "image/*" } });
    if (res.status !== 202) return readImage(res);
    await res.body?.cancel();
    job.onProgress?.({ fraction: null, stage: "stability:creative: in progress" });
    return undefined;
  });
}

/** An image answer (Accept: image/*): the bytes, with a filtered result or a refusal thrown as moderation. */
async function readImage(res: Response): Promise<Buffer> {
  if (!res.ok) throw await failureOf("stability", res, isModeration);
  // Like v1, a filtered image may still come back 200; only finish-reason says so.
  const finish = res.headers.get("finish-reason");
  if (finish === "CONTENT_FILTERED") throw new ModerationError("stability: finish-reason CONTENT_FILTERED");
  if (finish && finish !== "SUCCESS") throw new ProviderError("malformed", `stability: finish-reason ${finish}`);
  if (!/^image\//.test(res.headers.get("content-type") ?? "")) {
    await res.body?.cancel();
    throw new ProviderError("malformed", `stability: expected an image, got ${res.headers.get("content-type")}`);
  }
  return Buffer.from(await res.arrayBuffer());
}

/** Stability refuses flagged input with 403 and `"name": "content_moderation"`. */
function isModeration(status: number, body: string): boolean {
  return status === 403 && /"content_moderation"/.test(body);
}

function promptOf(job: EnhanceRouteJob): string {
  return job.prompt?.trim() || DEFAULT_PROMPT;
}

function clamp01(n: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
