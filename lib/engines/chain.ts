// Runs a model's fallback chain so one provider's outage, timeout or bad answer falls through to the next route.
import type { ModelName } from "@/lib/catalog/models";
import { inputNeeded } from "@/lib/catalog/route-inputs";
import { Moderated, WorkAborted } from "@/lib/errors";
import { attemptRoute, exhaustedError } from "./attempt";
import { batches } from "./batching";
import { type CapabilityEnv, variantFor } from "./capabilities";
import type { Failure } from "./failures";
import type { HealthBook } from "./health";
import { normalizeImage } from "./normalize";
import { previewEngine } from "./preview";
import { runWithProgress } from "./progress";
import type { ProviderCall, ProviderResult } from "./providers/types";
import { PREVIEW_ROUTE, type Route } from "./routes";
import type { GeneratedImage, GenerateJob, ImageEngine } from "./types";
export type ChainDeps = {
  timeoutMs: number;
  callFor: (route: Route) => ProviderCall;
  /** What decides which routes take an image or a mask, and the sibling route they switch to. */
  capabilities: CapabilityEnv;
  /** Where each attempt's outcome is counted, for /api/status and the console. */
  health: HealthBook;
};

/** Moderation stops the chain; an exhausted chain answers busy (all at capacity) or generation_failed. Provider text only reaches logs. */
export function createChainEngine(model: ModelName, routes: Route[], deps: ChainDeps): ImageEngine {
  const calls = new Map(routes.filter((r) => r.provider !== PREVIEW_ROUTE).map((r) => [r.id, deps.callFor(r)]));
  // Edit siblings (Kontext, Fill, img2img workflows) are built the first time a request needs them.
  const callOf = (route: Route) => {
    const built = calls.get(route.id);
    if (built) return built;
    const call = deps.callFor(route);
    calls.set(route.id, call);
    return call;
  };
  const ableFor = (job: GenerateJob) => {
    const need = inputNeeded({ image: job.input, mask: job.input?.mask });
    // A chain skips the routes that cannot take the request; the route layer refused it when none can.
    return routes.flatMap((r) => variantFor(model, r, need, deps.capabilities) ?? []);
  };
  return {
    id: routes[0].id,
    ai: routes[0].provider !== PREVIEW_ROUTE,
    // The first route decides (ROUTE_BATCHING); a fallback to one that does not batch makes just one image.
    batchSize(job: GenerateJob) {
      const first = ableFor(job)[0];
      return first && batches(first.provider) ? Math.max(1, job.count ?? 1) : 1;
    },
    async generate(job: GenerateJob): Promise<GeneratedImage> {
      const failures: Failure[] = [];
      for (const route of ableFor(job)) {
        if (route.provider === PREVIEW_ROUTE) {
          return { ...(await previewEngine.generate(job)), engine: PREVIEW_ROUTE, ai: false };
        }
        const call = callOf(route);
        job.onProgress?.({ fraction: null, stage: `sent to ${route.id}` });
        const outcome = await attemptRoute(
          {
            route: route.id,
            labels: { model },
            requestId: job.requestId,
            signal: job.signal,
            timeoutMs: deps.timeoutMs,
            health: deps.health,
          },
          (signal) => runWithProgress(job.onProgress, () => call({ job, signal, timeoutMs: deps.timeoutMs })),
          (result) => normalizedOf(result, job),
        );
        if (outcome.ok) {
          const more = outcome.value.more?.map((image) => ({ ...image, engine: route.id, ai: true }));
          return { ...outcome.value, engine: route.id, ai: true, ...(more && { more }) };
        }
        // A moderated prompt is not retried elsewhere: one provider's safety refusal is an answer, not an outage.
        if (outcome.failure.kind === "moderation") throw new Moderated();
        if (outcome.failure.kind === "cancelled") throw new WorkAborted();
        failures.push(outcome.failure);
      }
      throw exhaustedError("generation", failures, { request_id: job.requestId, model });
    },
  };
}

/** The provider's answer as the job's PNGs at the job's size: the image, and as many more as the job asked for. */
async function normalizedOf(result: ProviderResult, job: GenerateJob): Promise<GeneratedImage> {
  const png = await normalizeImage(result.bytes, job.width, job.height);
  const wanted = Math.max(0, (job.count ?? 1) - 1);
  const more = await Promise.all(
    (result.more ?? []).slice(0, wanted).map(async (extra) => ({
      png: await normalizeImage(extra.bytes, job.width, job.height),
      width: job.width,
      height: job.height,
      seed: extra.seed,
    })),
  );
  return { png, width: job.width, height: job.height, seed: result.seed, ...(more.length > 0 && { more }) };
}
