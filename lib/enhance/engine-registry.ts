// The process's enhance engine: the neural engine on a lazily started worker pool, sharp only if that cannot load.
import path from "node:path";
import type { Config } from "@/lib/config";
import { EnhanceFailed, WorkAborted } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { WorkerPool, WorkerStartError } from "./neural/pool";
import type { SrWorkerData } from "./neural/protocol";
import { createUpscaler } from "./neural/upscale";
import { createNeuralEngine } from "./neural-engine";
import { choosePrecision, int8WeightBits } from "./precision";
import { sharpEngine } from "./sharp-engine";
import type { EnhanceEngine, EnhanceJob, EnhanceOutput } from "./types";

export type EngineRegistry = {
  readonly pool: WorkerPool;
  /** Why the process uses sharp, once the neural runtime proved unable to load; never set by a crash. */
  readonly fallback?: string;
  run(job: EnhanceJob): Promise<EnhanceOutput>;
};

/** Where package files and the worker entry live; Next bundles this module, so __dirname is no guide. */
export function resolveProjectRoot(): string {
  return process.env.DARKROOM_ROOT ?? process.cwd();
}

/**
 * Runs jobs on `neural` under a per-job deadline. Only WorkerStartError (the runtime cannot load, decided once by
 * the pool on its first start) switches to sharp; a crashed worker is restarted by the pool, with backoff.
 * A job past its deadline stops its waiting tiles and fails with EnhanceFailed (cause: WorkAborted "deadline").
 */
export function createEngineRegistry(opts: {
  pool: WorkerPool;
  neural: EnhanceEngine;
  timeoutMs: number;
}): EngineRegistry {
  let fallback: string | undefined;
  const runEngines = async (job: EnhanceJob) => {
    if (fallback) return sharpEngine.enhance(job);
    try {
      return await opts.neural.enhance(job);
    } catch (err) {
      if (!(err instanceof WorkerStartError)) throw err;
      fallback = err.message;
      log.error("neural enhance engine unavailable; using the sharp engine from now on", describeError(err));
      return sharpEngine.enhance(job);
    }
  };
  return {
    pool: opts.pool,
    get fallback() {
      return fallback;
    },
    async run(job) {
      const deadline = AbortSignal.timeout(opts.timeoutMs);
      try {
        return await runEngines({ ...job, signal: AbortSignal.any([job.signal, deadline]) });
      } catch (err) {
        if (deadline.aborted && !job.signal.aborted) {
          log.warn("enhance job ran past its deadline; its waiting tiles were dropped", {
            timeout_ms: opts.timeoutMs,
            size: `${job.width}x${job.height}`,
            model: job.model,
          });
          throw new EnhanceFailed(`enhance ran past its deadline of ${opts.timeoutMs} ms`, {
            cause: new WorkAborted("deadline"),
          });
        }
        throw err;
      }
    },
  };
}

/** The registry the server uses, built from its configuration (the process singleton below holds one). */
export function createConfiguredRegistry(config: Config): EngineRegistry {
  const root = resolveProjectRoot();
  const workerData: SrWorkerData = {
    root,
    cacheDir: path.join(/*turbopackIgnore: true*/ config.dataDir, "models"),
    threads: config.enhance.threads,
    device: config.enhance.device,
  };
  const pool = new WorkerPool({
    script: path.join(/*turbopackIgnore: true*/ root, "lib", "enhance", "neural", "worker.cjs"),
    size: config.enhance.workers,
    workerData,
  });
  const bits = int8WeightBits();
  const neural = createNeuralEngine({
    upscaler: createUpscaler(pool, config.enhance.threads),
    modelPath: config.enhance.modelPath,
    precisionOf: (pkg, scale) => choosePrecision(pkg, scale, bits, config.enhance.precision),
  });
  return createEngineRegistry({ pool, neural, timeoutMs: config.enhance.timeoutMs });
}

/** The process's enhancer (the composition root holds one); its registry and worker pool start on first use. */
export function createEnhancer(config: Config) {
  let registry: EngineRegistry | undefined;
  const get = () => {
    registry ??= createConfiguredRegistry(config);
    return registry;
  };
  return {
    /**
     * Enhances with the neural engine; only a runtime that cannot start at all switches the process to sharp.
     * While the pool waits to restart a worker that failed to start, jobs are refused with QueueFull (503 busy).
     */
    run: (job: EnhanceJob): Promise<EnhanceOutput> => get().run(job),
    /** What /api/status shows: the engine in use, its models, and why sharp is used if it is. */
    describe() {
      const reg = get();
      const operator = config.enhance.modelPath ? path.basename(config.enhance.modelPath) : undefined;
      return {
        engine: reg.fallback ? ("sharp" as const) : ("onnx" as const),
        ai: !reg.fallback,
        models: { fast: operator ?? "esrgan-slim", quality: operator ?? "esrgan-medium" },
        workers: reg.pool.size,
        ...(reg.fallback && { fallback_reason: "the neural runtime could not start; see the server log" }),
      };
    },
    /**
     * Why the runtime is not ready, or null when it is: readiness (GET /api/ready) asks this, and a pool that never
     * started is started now, so an instance loads its runtime before a load balancer sends it work.
     */
    problem(): string | null {
      const reg = get();
      if (reg.fallback || reg.pool.startFailure) return "The neural enhance runtime could not load.";
      if (reg.pool.restarting) return "The enhance workers failed to start and are waiting to retry.";
      if (!reg.pool.loaded) {
        reg.pool.warm();
        return "The enhance runtime is still loading.";
      }
      return null;
    },
  };
}

export type Enhancer = ReturnType<typeof createEnhancer>;
