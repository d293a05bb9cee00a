// A mode's chain of routes run in order, as generation's chains are: each route's answer is checked (a decodable
// image within the pixel caps), resized to exactly the target size, blended with the lanczos3 base at `strength` for
// the faithful modes, and encoded without metadata. A route that fails or passes its deadline hands over to the
// next; an onnx route hands the work to the in-process networks.
import sharp from "sharp";
import { ENHANCE_MODES, type EnhanceModeName } from "@/lib/catalog/enhance-modes";
import type { EnhanceRouteKind, EnhanceRouteSpec, OnnxNetwork } from "@/lib/catalog/enhance-routes";
import type { OutputEncoding } from "@/lib/catalog/output-formats";
import type { Config } from "@/lib/config";
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { createGpuPools, type GpuPools } from "@/lib/engines/local/pool";
import { createProviderFetch } from "@/lib/engines/providers";
import type { WorkProgress } from "@/lib/engines/types";
import { ChainExhausted, EnhanceFailed } from "@/lib/errors";
import { encodeEnhanced } from "@/lib/images/encode";
import { describeError, log } from "@/lib/log";
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
import type { EnhanceRoute } from "./types";

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

/** A configured mode's routes and why each is out (null: it can take work); what /api/ready reads. */
export type EnhanceChainState = { mode: EnhanceModeName; routes: { route: string; out: string | null }[] };

/** Each mode's chain of steps, its routes built once; and their states for readiness. */
export type EnhanceRoutes = {
  stepsOf(mode: EnhanceModeName): ChainStep[];
  /**
   * Every mode with a chain, each step's state: an onnx step is never out here (the runtime's own readiness covers
   * it), a route is out while it says so (outReason).
   */
  describe(): EnhanceChainState[];
};

/**
 * The routes of `config`'s chains, built on first use and kept, so what one request learns (an ejected route, a
 * server out) the next one and /api/ready see; the services hold one per process. `pools` serve the a1111 routes.
 */
export function createEnhanceRoutes(config: Config, pools: GpuPools = createGpuPools()): EnhanceRoutes {
  const cache = new Map<string, ChainStep>();
  const stepsOf = (mode: EnhanceModeName) =>
    config.enhance.chains[mode].map((spec) => {
      const found = cache.get(spec.id) ?? stepOf(spec, config, pools);
      cache.set(spec.id, found);
      return found;
    });
  return {
    stepsOf,
    describe: () =>
      ENHANCE_MODES.filter((m) => config.enhance.chains[m.name].length > 0).map((m) => ({
        mode: m.name,
        routes: stepsOf(m.name).map((step) =>
          "onnx" in step
            ? { route: `onnx:${step.onnx}`, out: null }
            : { route: step.route.id, out: step.route.outReason?.(m.name) ?? null },
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
 * Runs the cloud routes at the head of `steps` in order; the first answer wins. Returns null when the chain reaches an
 * onnx step (`next` names it) before any route answered; throws when every route failed.
 */
export async function runRemoteSteps(
  steps: ChainStep[],
  image: RawImage,
  job: RemoteJob,
): Promise<{ output: RemoteOutput } | { next: OnnxNetwork }> {
  const failures: unknown[] = [];
  // The PNG the routes send is made for the first cloud route only: a chain that starts in process never pays for it.
  let png: Promise<Buffer> | undefined;
  for (const step of steps) {
    if ("onnx" in step) return { next: step.onnx };
    png ??= sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
      .png()
      .toBuffer();
    try {
      return { output: await runRoute(step.route, image, await png, job) };
    } catch (err) {
      if (job.signal.aborted) throw err;
      failures.push(err);
      log.warn("enhance route failed", { request_id: job.requestId, route: step.route.id, ...describeError(err) });
    }
  }
  const capacity = failures.filter((f): f is ProviderError => f instanceof ProviderError && f.kind === "capacity");
  if (failures.length > 0 && capacity.length === failures.length) {
    throw new ChainExhausted(true, Math.max(...capacity.map((f) => f.retryAfter ?? 30)));
  }
  throw new EnhanceFailed("every enhance route failed", { cause: failures.at(-1) });
}

async function runRoute(route: EnhanceRoute, image: RawImage, png: Buffer, job: RemoteJob): Promise<RemoteOutput> {
  const target = targetSize(image.width, image.height, job.scale);
  job.onProgress?.({ fraction: null, stage: `sent to ${route.id}` });
  const answer = await route.run({
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
  });
  const made = await exactSize(answer.image, image.channels, target.width, target.height, job.maxPixels, route.id);
  const data = BLENDS.has(job.mode)
    ? blendOver(await resizeLanczos(image, target.width, target.height), made, job.strength, image.channels)
    : made;
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
  } catch (err) {
    if (err instanceof ModerationError) throw err;
    throw new ProviderError("malformed", `${route}: the answer is not an image within the caps`);
  }
}
