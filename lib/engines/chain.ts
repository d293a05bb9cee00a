// Runs a model's fallback chain so one provider's outage, timeout or bad answer falls through to the next route.
import type { ModelName } from "@/lib/catalog/models";
import { inputNeeded } from "@/lib/catalog/route-inputs";
import { ChainExhausted, Moderated, WorkAborted } from "@/lib/errors";
import { log } from "@/lib/log";
import { type AttemptOutcome, observeRouteAttempt } from "@/lib/metrics";
import { withSpan } from "@/lib/metrics/trace";
import { batches } from "./batching";
import { type CapabilityEnv, variantFor } from "./capabilities";
import { classifyFailure, type Failure } from "./failures";
import type { HealthBook } from "./health";
import { normalizeImage } from "./normalize";
import { previewEngine } from "./preview";
import { runWithProgress } from "./progress";
import type { ProviderCall } from "./providers/types";
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

const DEFAULT_BUSY_RETRY_AFTER = 30;

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
        const started = performance.now();
        const outcome = await withSpan(
          "darkroom.route_attempt",
          { "darkroom.route": route.id, model },
          async (span) => {
            const result = await attemptRoute(call, job, deps.timeoutMs);
            const label = attemptOutcomeOf(result);
            observeRouteAttempt(route.id, label);
            span.set("darkroom.outcome", label);
            return result;
          },
        );
        const ms = performance.now() - started;
        if (outcome.ok) {
          deps.health.record(route.id, true, ms);
          const more = outcome.image.more?.map((image) => ({ ...image, engine: route.id, ai: true }));
          return { ...outcome.image, engine: route.id, ai: true, ...(more && { more }) };
        }
        const failure = outcome.failure;
        log.warn("provider route failed", {
          request_id: job.requestId,
          model,
          route: route.id,
          kind: failure.kind,
          status: failure.status,
          detail: failure.detail,
        });
        // A moderated prompt is not retried elsewhere: one provider's safety refusal is an answer, not an outage.
        if (failure.kind === "moderation") {
          deps.health.record(route.id, true, ms);
          throw new Moderated();
        }
        if (failure.kind === "cancelled") throw new WorkAborted();
        deps.health.record(route.id, false, ms);
        failures.push(failure);
      }
      throw exhaustedError(model, job.requestId, failures);
    },
  };
}

type Outcome = { ok: true; image: GeneratedImage } | { ok: false; failure: Failure };

function attemptOutcomeOf(outcome: Outcome): AttemptOutcome {
  if (outcome.ok) return "ok";
  const { kind } = outcome.failure;
  return kind === "moderation" ? "moderated" : kind === "cancelled" ? "cancelled" : "failed";
}

async function attemptRoute(call: ProviderCall, job: GenerateJob, timeoutMs: number): Promise<Outcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error("route deadline")), timeoutMs);
  const signal = AbortSignal.any([job.signal, deadline.signal]);
  const signals = () => ({ timedOut: deadline.signal.aborted, cancelled: job.signal.aborted });
  try {
    const result = await raceAbort(
      runWithProgress(job.onProgress, () => call({ job, signal, timeoutMs })),
      signal,
    );
    clearTimeout(timer);
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
    return {
      ok: true,
      image: { png, width: job.width, height: job.height, seed: result.seed, ...(more.length > 0 && { more }) },
    };
  } catch (err) {
    return { ok: false, failure: classifyFailure(err, signals()) };
  } finally {
    clearTimeout(timer);
  }
}

/** Settles at the deadline even if an SDK step ignores the signal (e.g. a poll delay). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function exhaustedError(model: ModelName, requestId: string, failures: Failure[]): ChainExhausted {
  log.error("generation chain exhausted", { request_id: requestId, model, failures: failures.map((f) => f.kind) });
  const allAtCapacity = failures.length > 0 && failures.every((f) => f.kind === "capacity");
  if (!allAtCapacity) return new ChainExhausted(false);
  return new ChainExhausted(true, Math.max(...failures.map((f) => f.retryAfter ?? DEFAULT_BUSY_RETRY_AFTER)));
}
