// Black Forest Labs (FLUX 1.1 [pro]) through @ai-sdk/black-forest-labs: submit, poll the returned polling_url, download.
import { createBlackForestLabs } from "@ai-sdk/black-forest-labs";
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import { ModerationError } from "@/lib/engines/failures";
import { reportProgress } from "@/lib/engines/progress";
import { firstImageMeta, runImageModel, seedOf, whiteMaskEdit } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

/**
 * Default https://api.bfl.ai/v1; BFL_BASE_URL replaces it. Polling follows the polling_url the API returns when it is
 * on BFL's hosts or the base URL's origin (see hosts.ts); the key goes to API hosts only, never to result.sample.
 */
export function createBflCall(modelId: string, settings: ProviderSettings): ProviderCall {
  const provider = createBlackForestLabs({
    apiKey: settings.apiKey,
    baseURL: settings.baseUrl,
    fetch: detectModeration(settings.fetch),
  });
  const model = provider.image(modelId);
  return async ({ job, signal, timeoutMs }) => {
    // Kontext (input_image) and Fill (input_image + mask) take their size from the image.
    const size = job.input ? {} : { width: job.width, height: job.height };
    const { bytes, metadata } = await runImageModel(
      model,
      {
        prompt: job.styledPrompt,
        seed: job.seed,
        ...(await whiteMaskEdit(job)),
        // Exact FLUX dimensions (multiples of 32) rather than an aspect ratio, so no resampling is needed.
        providerOptions: {
          blackForestLabs: { ...size, outputFormat: "png", pollTimeoutMillis: timeoutMs },
        },
      },
      signal,
    );
    return { bytes, seed: seedOf(firstImageMeta(metadata, "blackForestLabs").seed) ?? job.seed };
  };
}

const MODERATED = new Set(["Request Moderated", "Content Moderated"]);

/**
 * The SDK keeps polling on "Request Moderated" and fails to parse "Content Moderated", so a moderated
 * task would surface as a timeout; reading each poll answer here turns it into a moderation failure.
 */
function detectModeration(inner: FetchFn): FetchFn {
  return async (input, init) => {
    const res = await inner(input, init);
    if (init?.method !== "POST" && res.ok && res.headers.get("content-type")?.includes("json")) {
      const body = (await res
        .clone()
        .json()
        .catch(() => null)) as { status?: unknown; state?: unknown; progress?: unknown } | null;
      const status = body?.status ?? body?.state;
      if (typeof status === "string" && MODERATED.has(status)) throw new ModerationError(`bfl: ${status}`);
      // BFL reports the task's state, and a progress fraction while it renders.
      if (typeof status === "string") {
        const fraction =
          typeof body?.progress === "number" && body.progress >= 0 && body.progress <= 1 ? body.progress : null;
        reportProgress({ fraction, stage: `bfl: ${status.toLowerCase()}` });
      }
    }
    return res;
  };
}
