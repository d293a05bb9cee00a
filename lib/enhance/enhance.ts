// Runs one enhancement: check the upload's header, then, in one bounded queue slot, take the pixels it will hold
// from the process's pixel budget, decode, enhance and store it. While it waits it holds only its compressed upload.
import { type EnhanceModeName, IN_PROCESS_MODES } from "@/lib/catalog/enhance-modes";
import type { OnnxNetwork } from "@/lib/catalog/enhance-routes";
import { DEFAULT_OUTPUT, type OutputEncoding } from "@/lib/catalog/output-formats";
import type { Config } from "@/lib/config";
import type { WorkProgress } from "@/lib/engines/types";
import { DomainError, EnhanceFailed } from "@/lib/errors";
import { type RecordDeps, storeImage } from "@/lib/images/library";
import { describeError, log } from "@/lib/log";
import type { ImageStorage } from "@/lib/storage/types";
import { type PixelBudget, pixelBytesOf } from "@/lib/work/pixel-budget";
import type { WorkQueue } from "@/lib/work/queue";
import { decodeShared, probeImage } from "./decode";
import type { Enhancer } from "./engine-registry";
import { enhanceRaw, targetSize } from "./pipeline";
import type { EnhanceRoutes } from "./routes/remote-chain";
import type { ModelChoice, RawImage } from "./types";

export type EnhanceInput = {
  bytes: Buffer;
  strength: number;
  scale: 2 | 4;
  /** The mode: its chain (ENHANCE_<MODE>) decides the routes. */
  model: EnhanceModeName;
  /** Steers creative and Stability's conservative route; filtered already. */
  prompt?: string;
  /** png unless the caller asked for another format. */
  output?: OutputEncoding;
};

export type EnhanceDeps = RecordDeps & {
  requestId: string;
  /** Aborts when the caller goes away or cancels. */
  signal: AbortSignal;
  storage: ImageStorage;
  queue: WorkQueue;
  /** Where the decode takes its pixels from: the process's budget, shared with the upload gate and edit decodes. */
  pixels: PixelBudget;
  origin: string;
  config: Config;
  enhancer: Pick<Enhancer, "run">;
  /** The modes' chains of routes (the services' one set). */
  routes: Pick<EnhanceRoutes, "runRemote">;
  /** Called once the job leaves the queue and starts: from then on the cost is being spent. May refuse (throw). */
  onStart?: () => void | Promise<void>;
  /** Hears the place in line while the job waits (1 = next). */
  onQueued?: (position: number) => void;
  onProgress?: (progress: WorkProgress) => void;
};

export type EnhancedResult = {
  id: string;
  url: string;
  originalSize: string;
  enhancedSize: string;
  scale: number;
  engine: string;
  /** Whether a neural network or an AI service made it (not the plain resize), and whether it may invent detail. */
  ai: boolean;
  generative: boolean;
  /** ISO 8601, or null when kept forever. */
  expiresAt: string | null;
  deleteToken: string;
};

export async function enhanceImage(input: EnhanceInput, deps: EnhanceDeps): Promise<EnhancedResult> {
  const { maxPixels } = deps.config.upload;
  // The header alone refuses non-images and pixel bombs before a queue slot is spent on them, and sizes the decode.
  const probe = await probeImage(input.bytes, maxPixels);
  const target = targetSize(probe.width, probe.height, input.scale);
  const pixels = pixelBytesOf(probe, { ...target, channels: probe.channels });
  const result = await deps.queue.run(
    async () => {
      // Before the start: a refusal here (busy) leaves nothing spent, so the caller's unit comes back.
      const hold = await deps.pixels.take(pixels, deps.signal);
      try {
        await deps.onStart?.();
        return await decodeAndRun(input, deps, probe.plainPng);
      } finally {
        hold.release();
      }
    },
    deps.signal,
    deps.onQueued,
  );
  deps.onProgress?.({ fraction: 1, stage: "storing" });
  const scale = Number(result.out.scale.toFixed(4));
  const { original, out } = result;
  const output = input.output ?? DEFAULT_OUTPUT;
  const params = {
    strength: input.strength,
    scale,
    model: input.model,
    originalWidth: original.width,
    originalHeight: original.height,
    engine: out.engine,
    ...(output.format !== "png" && { format: output.format }),
  };
  const stored = await storeImage(
    deps.storage,
    out.bytes,
    deps.origin,
    { kind: "enhance", params, width: out.width, height: out.height, format: output.format },
    deps,
  );
  return {
    id: stored.id,
    url: stored.url,
    originalSize: `${original.width}x${original.height}`,
    enhancedSize: `${out.width}x${out.height}`,
    scale,
    engine: out.engine,
    ai: out.ai,
    generative: out.generative,
    expiresAt: stored.expiresAt,
    deleteToken: stored.deleteToken,
  };
}

/** Decodes the upload and runs the mode's chain on it; only the sizes of the decoded input outlive it. */
async function decodeAndRun(input: EnhanceInput, deps: EnhanceDeps, plainPng: boolean) {
  const started = performance.now();
  deps.onProgress?.({ fraction: 0, stage: "decoding" });
  const image = await decodeShared(input.bytes, deps.config.upload.maxPixels);
  deps.onProgress?.({ fraction: null, stage: "enhancing" });
  try {
    const out = await runChain(input, image, deps, plainPng);
    // One line per job that ran: operators see timings, and tests can tell a dropped job never ran.
    log.info("enhance job", {
      request_id: deps.requestId,
      engine: out.engine,
      model: input.model,
      size: `${out.width}x${out.height}`,
      ms: Math.round(performance.now() - started),
    });
    return { out, original: { width: image.width, height: image.height } };
  } catch (err) {
    if (err instanceof DomainError || deps.signal.aborted) throw err;
    log.error("enhance failed", { request_id: deps.requestId, model: input.model, ...describeError(err) });
    throw new EnhanceFailed("enhance failed", { cause: err });
  }
}

/**
 * The mode's chain: its cloud routes in order, then (or instead) the in-process network its onnx route names. A plain
 * PNG upload goes to the routes as it is, with no encode of its own.
 */
async function runChain(input: EnhanceInput, image: RawImage, deps: EnhanceDeps, plainPng: boolean) {
  const output = input.output ?? DEFAULT_OUTPUT;
  const remote = await deps.routes.runRemote(input.model, image, {
    mode: input.model,
    scale: input.scale,
    strength: input.strength,
    prompt: input.prompt,
    faceRestorer: deps.config.enhance.faceRestorer,
    output,
    maxPixels: deps.config.upload.maxPixels,
    ...(plainPng && { upload: input.bytes }),
    requestId: deps.requestId,
    signal: deps.signal,
    onProgress: deps.onProgress,
  });
  if ("output" in remote) return remote.output;
  const out = await enhanceRaw(deps.enhancer.run, image, {
    strength: input.strength,
    scale: input.scale,
    model: MODE_OF_NETWORK[remote.next],
    signal: deps.signal,
    onProgress: deps.onProgress,
    output,
  });
  // A plain resize (strength 0, lanczos3) or the sharp fallback is not AI; the networks are.
  return { ...out, ai: out.engine.startsWith("onnx"), generative: false };
}

/** The in-process mode that runs each shipped network. */
const MODE_OF_NETWORK = Object.fromEntries(IN_PROCESS_MODES.map((m) => [m.package, m.name])) as Record<
  OnnxNetwork,
  ModelChoice
>;
