// Runs one enhancement: check the upload's header, then decode, enhance and store it in one bounded queue slot.
import { DEFAULT_OUTPUT, type OutputEncoding } from "@/lib/catalog/output-formats";
import type { Config } from "@/lib/config";
import type { WorkProgress } from "@/lib/engines/types";
import { DomainError, EnhanceFailed } from "@/lib/errors";
import { type RecordDeps, storeImage } from "@/lib/images/library";
import { describeError, log } from "@/lib/log";
import type { ImageStorage } from "@/lib/storage/types";
import type { WorkQueue } from "@/lib/work/queue";
import { decodeImage, probeImage } from "./decode";
import type { Enhancer } from "./engine-registry";
import { enhanceRaw } from "./pipeline";
import type { ModelChoice } from "./types";

export type EnhanceInput = {
  bytes: Buffer;
  strength: number;
  scale: 2 | 4;
  model: ModelChoice;
  /** png unless the caller asked for another format. */
  output?: OutputEncoding;
};

export type EnhanceDeps = RecordDeps & {
  requestId: string;
  /** Aborts when the caller goes away or cancels. */
  signal: AbortSignal;
  storage: ImageStorage;
  queue: WorkQueue;
  origin: string;
  config: Config;
  enhancer: Pick<Enhancer, "run">;
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
  /** ISO 8601, or null when kept forever. */
  expiresAt: string | null;
  deleteToken: string;
};

export async function enhanceImage(input: EnhanceInput, deps: EnhanceDeps): Promise<EnhancedResult> {
  const { maxPixels } = deps.config.upload;
  // The header alone refuses non-images and pixel bombs before a queue slot is spent on them.
  await probeImage(input.bytes, maxPixels);
  const result = await deps.queue.run(
    async () => {
      await deps.onStart?.();
      const started = performance.now();
      deps.onProgress?.({ fraction: 0, stage: "decoding" });
      const image = await decodeImage(input.bytes, maxPixels);
      deps.onProgress?.({ fraction: null, stage: "enhancing" });
      try {
        const out = await enhanceRaw(deps.enhancer.run, image, {
          strength: input.strength,
          scale: input.scale,
          model: input.model,
          signal: deps.signal,
          onProgress: deps.onProgress,
          output: input.output ?? DEFAULT_OUTPUT,
        });
        // One line per job that ran: operators see timings, and tests can tell a dropped job never ran.
        log.info("enhance job", {
          request_id: deps.requestId,
          engine: out.engine,
          model: input.model,
          size: `${out.width}x${out.height}`,
          ms: Math.round(performance.now() - started),
        });
        return { out, original: image };
      } catch (err) {
        if (err instanceof DomainError || deps.signal.aborted) throw err;
        log.error("enhance failed", { request_id: deps.requestId, model: input.model, ...describeError(err) });
        throw new EnhanceFailed("enhance failed", { cause: err });
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
    expiresAt: stored.expiresAt,
    deleteToken: stored.deleteToken,
  };
}
