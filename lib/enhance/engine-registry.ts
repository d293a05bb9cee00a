// The process's enhance engine: the neural engine on a lazily started worker pool, sharp only if that cannot load.
import path from "node:path";
import type { Config } from "@/lib/config";
import { describeError, log } from "@/lib/log";
import { WorkerPool, WorkerStartError } from "./neural/pool";
import type { SrWorkerData } from "./neural/protocol";
import { createUpscaler } from "./neural/upscale";
import { createNeuralEngine } from "./neural-engine";
import { sharpEngine } from "./sharp-engine";
import type { EnhanceEngine, EnhanceJob } from "./types";

type Registry = { pool: WorkerPool; neural: EnhanceEngine; fallback?: string };
const KEY = Symbol.for("darkroom.enhance-engine");
type Holder = { [KEY]?: Registry };

/** Where package files and the worker entry live; Next bundles this module, so __dirname is no guide. */
export function resolveProjectRoot(): string {
  return process.env.DARKROOM_ROOT ?? process.cwd();
}

function createRegistry(config: Config): Registry {
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
  return { pool, neural: createNeuralEngine({ upscaler: createUpscaler(pool), modelPath: config.enhance.modelPath }) };
}

function getRegistry(config: Config): Registry {
  const holder = globalThis as Holder;
  holder[KEY] ??= createRegistry(config);
  return holder[KEY];
}

/** Enhances with the neural engine; only a runtime that cannot start at all switches the process to sharp. */
export async function runEnhanceEngine(config: Config, job: EnhanceJob) {
  const reg = getRegistry(config);
  if (reg.fallback) return sharpEngine.enhance(job);
  try {
    return await reg.neural.enhance(job);
  } catch (err) {
    if (!(err instanceof WorkerStartError)) throw err;
    reg.fallback = err.message;
    log.error("neural enhance engine unavailable; using the sharp engine from now on", describeError(err));
    return sharpEngine.enhance(job);
  }
}

/** What /api/status shows: the engine in use, its models, and why sharp is used if it is. */
export function describeEnhanceEngine(config: Config) {
  const reg = getRegistry(config);
  const operator = config.enhance.modelPath ? path.basename(config.enhance.modelPath) : undefined;
  return {
    engine: reg.fallback ? ("sharp" as const) : ("onnx" as const),
    ai: !reg.fallback,
    models: { fast: operator ?? "esrgan-slim", quality: operator ?? "esrgan-medium" },
    workers: reg.pool.size,
    ...(reg.fallback && { fallback_reason: "the neural runtime could not start; see the server log" }),
  };
}
