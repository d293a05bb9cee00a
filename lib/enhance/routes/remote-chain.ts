// A mode's chain of routes run in order, as generation's chains are: each route's answer is checked (a decodable
// image within the pixel caps), resized to exactly the target size, blended with the lanczos3 base at `strength` for
// the faithful modes, and encoded without metadata. A route that fails or passes its deadline hands over to the
// next; an onnx route hands the work to the in-process networks.
import sharp from "sharp";
import { ENHANCE_MODES, type EnhanceModeName } from "@/lib/catalog/enhance-modes";
import type { EnhanceRouteKind, EnhanceRouteSpec, OnnxNetwork } from "@/lib/catalog/enhance-routes";
import type { OutputEncoding } from "@/lib/catalog/output-formats";
import type { Config } from "@/lib/config";
import { createEngineShared, type EngineShared } from "@/lib/engines";
import { attemptRoute, exhaustedError } from "@/lib/engines/attempt";
import { type Failure, ProviderError } from "@/lib/engines/failures";
import type { HealthBook } from "@/lib/engines/health";
import { EJECT_MS, type GpuPools } from "@/lib/engines/local/pool";
import { createProviderFetch } from "@/lib/engines/providers";
import type { WorkProgress } from "@/lib/engines/types";
import { Moderated, WorkAborted } from "@/lib/errors";
import { ENHANCE_PNG_OPTIONS, encodeEnhanced } from "@/lib/images/encode";
import { blendOver } from "../blend";
import { resizeLanczos } from "../finish";
import { createA1111EnhanceRoute } from "../local/a1111";
import { createComfyUiEnhanceRoute } from "../local/comfyui";
import { targetSize } from "../pipeline";
import { createFalEnhanceRoute } from "../remote/fal";
import { createReplicateEnhanceRoute } from "../remote/replicate";
import type { RemoteRouteDeps } from "../remote/shared";
import { createStabilityEnhanceRoute } from "../remote/stability";
import type { RawImage } from "../types";
import type { EnhanceRoute, EnhanceRouteJob } from "./types";

/** A chain's step: a cloud route, or the in-process network that ends the chain. */
export type ChainStep = { route: EnhanceRoute } | { onnx: OnnxNetwork };

const FACTORIES: Record<
  Exclude<EnhanceRouteKind, "onnx" | "a1111" | "comfyui">,
  (target: string, deps: RemoteRouteDeps) => EnhanceRoute
> = {
  stability: createStabilityEnhanceRoute,
  replicate: createReplicateEnhanceRoute,
  fal: createFalEnhanceRoute,
};

/** Modes whose `strength` blends the engine's output over the plain resize (the mode table's strength column). */
const BLENDS = new Set<EnhanceModeName>(ENHANCE_MODES.filter((m) => m.strength === "blend").map((m) => m.name));

/**
 * A configured mode's routes, whether each is failing (its last calls all failed, as generation's routes say it) and
 * why each is out (null: it can take work); what /api/ready, /api/status, the console and /metrics read.
 */
export type EnhanceChainState = {
  mode: EnhanceModeName;
  routes: { route: string; failing: boolean; out: string | null }[];
};

/** Each mode's chain of steps, its routes built once; the remote head of a chain run; and their states. */
export type EnhanceRoutes = {
  stepsOf(mode: EnhanceModeName): ChainStep[];
  /**
   * Runs the cloud and GPU routes at the head of the mode's chain in order; the first answer wins. Returns the onnx
   * step the chain reaches before any route answered; throws when every route failed.
   */
  runRemote(
    mode: EnhanceModeName,
    image: RawImage,
    job: RemoteJob,
  ): Promise<{ output: RemoteOutput } | { next: OnnxNetwork }>;
  /**
   * Every mode with a chain, each step's state: an onnx step is never out here (the runtime's own readiness covers
   * it); a route is out while it says so (outReason), or while its last calls all failed, for the time a GPU server
   * is taken out after its failures (as generation's routes are).
   */
  describe(now?: number): EnhanceChainState[];
};

/**
 * The routes of `config`'s chains, built on first use and kept, so what one request learns (an ejected route, a
 * server out) the next one and /api/ready see; the services hold one per process. `shared` is generation's: its
 * pools serve the a1111 routes, and its health book records every attempt, so both kinds show by route id.
 */
export function createEnhanceRoutes(config: Config, shared: EngineShared = createEngineShared()): EnhanceRoutes {
  const cache = new Map<string, ChainStep>();
  const stepsOf = (mode: EnhanceModeName) =>
    config.enhance.chains[mode].map((spec) => {
      const found = cache.get(spec.id) ?? stepOf(spec, config, shared.pools);
      cache.set(spec.id, found);
      return found;
    });
  const { health } = shared;
  const stateOf = (route: EnhanceRoute, now: number, mode: EnhanceModeName) => {
    const failing = health.isFailing(route.id);
    const lastFailure = failing ? Date.parse(health.of(route.id).lastFailureAt ?? "") : Number.NaN;
    const out = route.outReason?.(mode) ?? (now - lastFailure < EJECT_MS ? "its last calls all failed" : null);
    return { route: route.id, failing, out };
  };
  return {
    stepsOf,
    runRemote: (mode, image, job) =>
      runRemoteSteps(stepsOf(mode), image, job, { health, timeoutMs: config.enhance.timeoutMs }),
    describe: (now = Date.now()) =>
      ENHANCE_MODES.filter((m) => config.enhance.chains[m.name].length > 0).map((m) => ({
        mode: m.name,
        routes: stepsOf(m.name).map((step) =>
          "onnx" in step ? { route: `onnx:${step.onnx}`, failing: false, out: null } : stateOf(step.route, now, m.name),
        ),
      })),
  };
}

function stepOf(spec: EnhanceRouteSpec, config: Config, pools: GpuPools): ChainStep {
  if (spec.kind === "onnx") return { onnx: spec.target as OnnxNetwork };
  const a1111 = config.generation.local.a1111;
  if (spec.kind === "a1111" && a1111) {
    return {
      route: createA1111EnhanceRoute(spec.target, {
        settings: a1111,
        pool: pools("a1111", a1111.urls),
        timeoutMs: config.enhance.timeoutMs,
      }),
    };
  }
  if (spec.kind === "a1111") throw new Error("config refuses an a1111 route without A1111_URLS");
  const comfyui = config.generation.local.comfyui;
  if (spec.kind === "comfyui" && comfyui) {
    const deps = { settings: comfyui, pool: pools("comfyui", comfyui.urls), timeoutMs: config.enhance.timeoutMs };
    return { route: createComfyUiEnhanceRoute(spec.target, deps) };
  }
  if (spec.kind === "comfyui") throw new Error("config refuses a comfyui route without COMFYUI_URLS");
  const { credentials, baseUrls } = config.generation.providers;
  const baseUrl = baseUrls[spec.kind] ?? "";
  return {
    route: FACTORIES[spec.kind](spec.target, {
      apiKey: credentials[spec.kind] ?? "",
      baseUrl,
      fetch: createProviderFetch(spec.kind, { baseUrl }),
      timeoutMs: config.enhance.timeoutMs,
    }),
  };
}

export type RemoteJob = {
  mode: EnhanceModeName;
  scale: 2 | 4;
  strength: number;
  prompt?: string;
  faceRestorer: "gfpgan" | "codeformer";
  output: OutputEncoding;
  maxPixels: number;
  /** The upload's own bytes when they are a PNG a route may get as they are (Probe.plainPng). */
  upload?: Buffer;
  requestId: string;
  signal: AbortSignal;
  onProgress?: (progress: WorkProgress) => void;
};

export type RemoteOutput = {
  bytes: Buffer;
  width: number;
  height: number;
  scale: number;
  engine: string;
  ai: boolean;
  generative: boolean;
};

/**
 * Runs the cloud and GPU routes at the head of `steps` in order, each attempt through generation's attempt helper
 * (the route's deadline, failure classes, span, metric, health, log line); the first answer that passes the checks
 * wins. Returns null when the chain reaches an onnx step (`next` names it) before any route answered. A refusal on
 * safety grounds stops the chain (Moderated), as in generation; every route failed is ChainExhausted.
 */
export async function runRemoteSteps(
  steps: ChainStep[],
  image: RawImage,
  job: RemoteJob,
  chain: { health: HealthBook; timeoutMs: number },
): Promise<{ output: RemoteOutput } | { next: OnnxNetwork }> {
  const failures: Failure[] = [];
  const target = targetSize(image.width, image.height, job.scale);
  // The PNG the routes send is made for the first cloud route only: a chain that starts in process never pays for
  // it, and a plain PNG upload is sent as it is.
  let png: Promise<Buffer> | undefined;
  // The lanczos3 base of the blend is made while the first route works (it needs the input only). Strength 1 of an
  // opaque image is the engine's output itself: no blend.
  const blends = BLENDS.has(job.mode) && !(job.strength === 1 && image.channels === 3);
  let base: Promise<RawImage> | undefined;
  for (const step of steps) {
    if ("onnx" in step) return { next: step.onnx };
    png ??= job.upload ? Promise.resolve(job.upload) : pngForRoutes(image);
    if (blends && !base) {
      base = resizeLanczos(image, target.width, target.height);
      base.catch(() => undefined);
    }
    const { route } = step;
    job.onProgress?.({ fraction: null, stage: `sent to ${route.id}` });
    const sent = await png;
    const outcome = await attemptRoute(
      {
        route: route.id,
        labels: { mode: job.mode },
        requestId: job.requestId,
        signal: job.signal,
        timeoutMs: chain.timeoutMs,
        health: chain.health,
      },
      // The route keeps the caller's signal and its own deadline of the same length (it cancels the provider's job
      // at it); the attempt's deadline settles the chain even if a route ignored its own.
      () => route.run(routeJob(sent, image, target, job)),
      (answer) => finishAnswer(route, answer.image, image, target, job, base),
    );
    if (outcome.ok) return { output: outcome.value };
    if (outcome.failure.kind === "moderation") throw new Moderated();
    if (outcome.failure.kind === "cancelled") throw new WorkAborted();
    failures.push(outcome.failure);
  }
  throw exhaustedError("enhance", failures, { request_id: job.requestId, mode: job.mode });
}

function routeJob(
  png: Buffer,
  image: RawImage,
  target: { width: number; height: number },
  job: RemoteJob,
): EnhanceRouteJob {
  return {
    image: png,
    width: image.width,
    height: image.height,
    targetWidth: target.width,
    targetHeight: target.height,
    scale: job.scale,
    mode: job.mode,
    strength: job.strength,
    prompt: job.prompt,
    faceRestorer: job.faceRestorer,
    requestId: job.requestId,
    signal: job.signal,
    onProgress: job.onProgress,
  };
}

/** The input as the PNG the routes get (metadata stripped by the decode), at the enhance encoder's cheaper effort. */
function pngForRoutes(image: RawImage): Promise<Buffer> {
  const { width, height, channels } = image;
  return sharp(image.data, { raw: { width, height, channels } }).png(ENHANCE_PNG_OPTIONS).toBuffer();
}

/**
 * The enhance chain's own checks of an answer: exactly the target size, the blend over `base` for strength in the
 * faithful modes (when there is one), the encode.
 */
async function finishAnswer(
  route: EnhanceRoute,
  answer: Buffer,
  image: RawImage,
  target: { width: number; height: number; scale: number },
  job: RemoteJob,
  base: Promise<RawImage> | undefined,
): Promise<RemoteOutput> {
  const made = await exactSize(answer, image.channels, target.width, target.height, job.maxPixels, route.id);
  const data = base ? blendOver(await base, made, job.strength, image.channels) : made;
  const bytes = await encodeEnhanced(
    { data, width: target.width, height: target.height, channels: image.channels },
    job.output,
  );
  return {
    bytes,
    width: target.width,
    height: target.height,
    scale: target.scale,
    engine: route.id,
    ai: route.ai,
    generative: route.generative,
  };
}

/** The route's image decoded within the pixel cap and resized to exactly the target, in the input's channels. */
async function exactSize(
  bytes: Buffer,
  channels: 3 | 4,
  width: number,
  height: number,
  maxPixels: number,
  route: string,
): Promise<Buffer> {
  try {
    let img = sharp(bytes, { limitInputPixels: maxPixels, failOn: "truncated" })
      .rotate()
      .toColourspace("srgb")
      .resize(width, height, { kernel: "lanczos3", fit: "fill" });
    img = channels === 4 ? img.ensureAlpha() : img.removeAlpha();
    return await img.raw().toBuffer();
  } catch {
    throw new ProviderError("malformed", `${route}: the answer is not an image within the caps`);
  }
}
