// Replicate models (or an operator's Cog server on REPLICATE_BASE_URL) as enhance routes: one prediction with
// `Prefer: wait`, polled when the wait runs out, cancelled when the caller gives up, its output downloaded.
import { ProviderError } from "@/lib/engines/failures";
import { POLL_INTERVAL_MS, type Prediction, settlePrediction } from "@/lib/engines/providers/replicate-poll";
import type { EnhanceRoute, EnhanceRouteJob } from "@/lib/enhance/routes/types";
import { baseOf, download, failureOf, jsonOf, pngDataUri, type RemoteRouteDeps, withDeadline } from "./shared";

const DEFAULT_BASE_URL = "https://api.replicate.com/v1";
/** Replicate holds a `Prefer: wait` request open for at most 60 s. */
const MAX_WAIT_S = 60;

type KnownModel = {
  /** Community models run only by version; a bare `owner/name` route is pinned to this one. */
  version: string;
  /** The model's own input schema, filled from the job (the image as a data URI). */
  input: (job: EnhanceRouteJob, image: string) => Record<string, unknown>;
};

/** The known models' inputs, from each model's input schema on Replicate. */
export const REPLICATE_ENHANCE_MODELS: Record<string, KnownModel> = {
  // image, scale (0–10, default 4), face_enhance (GFPGAN, default false).
  "nightmareai/real-esrgan": {
    version: "f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa",
    input: (job, image) => ({ image, scale: job.scale, face_enhance: job.mode === "faces" }),
  },
  // image, upscale (default 2), codeformer_fidelity (0 = quality … 1 = identity), face_upsample, background_enhance.
  "sczhou/codeformer": {
    version: "cc4956dd26fa5a7185d5660cc9100fab1b8070a1d1654a8bb5eb6d443b020bb2",
    input: (job, image) => ({
      image,
      upscale: job.scale,
      // strength is the restorer's weight: 1 restores fully (fidelity 0), 0 keeps the face as it is.
      codeformer_fidelity: Math.round((1 - Math.min(1, Math.max(0, job.strength))) * 100) / 100,
      face_upsample: true,
      background_enhance: true,
    }),
  },
  // img, scale (default 2), version (v1.2, v1.3, v1.4; default v1.4).
  "tencentarc/gfpgan": {
    version: "0fbacf7afc6c144e5be9767cff80f25aff23e52b0708f17e20f9879b2f21516c",
    input: (job, image) => ({ img: image, scale: job.scale, version: "v1.4" }),
  },
};

/** An unknown model gets the inputs most upscalers on Replicate share. */
const GENERIC_INPUT = (job: EnhanceRouteJob, image: string) => ({ image, scale: job.scale });

/** `replicate:<owner>/<model>[:<version>]`. */
export function createReplicateEnhanceRoute(modelId: string, deps: RemoteRouteDeps): EnhanceRoute {
  const [model, explicitVersion] = modelId.split(":", 2);
  if (!/^[\w.-]+\/[\w.-]+$/.test(model ?? ""))
    throw new Error(`replicate: "${modelId}" is not <owner>/<model>[:<version>]`);
  const known = REPLICATE_ENHANCE_MODELS[model];
  const version = explicitVersion || known?.version;
  const base = baseOf(deps.baseUrl, DEFAULT_BASE_URL);
  // A version runs through /predictions (which an operator's Cog server also serves); official models by name.
  const url = version ? `${base}/predictions` : `${base}/models/${model}/predictions`;
  const id = `replicate:${modelId}`;
  const waitS = Math.max(1, Math.min(MAX_WAIT_S, Math.floor(deps.timeoutMs / 1000)));
  const headers = {
    Authorization: `Bearer ${deps.apiKey}`,
    "Content-Type": "application/json",
    Prefer: `wait=${waitS}`,
    // Replicate cancels the prediction itself past our deadline, even if we never get to send the cancel.
    "Cancel-After": `${Math.max(1, Math.ceil(deps.timeoutMs / 1000))}s`,
  };
  return {
    id,
    ai: true,
    generative: false,
    run: (job) =>
      withDeadline(id, job.signal, deps.timeoutMs, async (signal) => {
        const input = (known?.input ?? GENERIC_INPUT)(job, pngDataUri(job.image));
        job.onProgress?.({ fraction: null, stage: `${id}: submitted` });
        const res = await deps.fetch(url, {
          method: "POST",
          signal,
          headers,
          body: JSON.stringify(version ? { version, input } : { input }),
        });
        if (!res.ok) throw await failureOf("replicate", res);
        const first = (await jsonOf("replicate", res)) as Prediction;
        const done = await settlePrediction(first, {
          fetch: deps.fetch,
          headers: { Authorization: headers.Authorization },
          signal,
          onProgress: job.onProgress,
          intervalMs: deps.pollIntervalMs ?? POLL_INTERVAL_MS,
        });
        return { image: await download("replicate", deps.fetch, outputUrl(done.output), signal) };
      }),
  };
}

/** The models answer one URL (a data URI from a Cog server without upload storage); some answer a list. */
function outputUrl(output: unknown): string {
  const first = Array.isArray(output) ? output[0] : output;
  if (typeof first !== "string") throw new ProviderError("malformed", "replicate: the prediction has no image output");
  return first;
}
