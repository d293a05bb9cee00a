// Runs a super-resolution model over an image on the worker pool, tile by tile, so one image uses every idle worker,
// and blends on the pool too. Pixels stay in shared memory: the workers cut and place the tiles themselves.
import { setMaxListeners } from "node:events";
import type { OutputEncoding } from "@/lib/catalog/output-formats";
import { withSpan } from "@/lib/metrics/trace";
import { planBands } from "../finish";
import { addTime, type Profile, type RawImage } from "../types";
import type { WorkerPool } from "./pool";
import {
  type FinishResult,
  type ModelInfo,
  type ModelRef,
  type SharedImage,
  type SrTask,
  type TileProfile,
  toModelKey,
} from "./protocol";
import { bufferOf, toShared } from "./shared-memory";
import { chooseTileSize, planTiles } from "./tiles";

export type RunOptions = {
  signal: AbortSignal;
  /** Jobs of one group share a turn in the pool's round-robin: pass one per image being enhanced. */
  group?: unknown;
  /** Hears each finished task: how many of how many are done. */
  onTaskDone?: (done: number, total: number) => void;
  /** Collects where the time goes (stage → ms): tile stages are worker time summed over the tiles. */
  profile?: Profile;
};

export type Upscaler = {
  describe(model: ModelRef): Promise<ModelInfo>;
  /** Packed RGB at the model's native scale; alpha, if any, is ignored. */
  upscale(
    model: ModelRef,
    image: RawImage,
    opts: RunOptions & { tileSize?: number; overlap?: number },
  ): Promise<RawImage>;
  /**
   * The last steps on the workers (finish.ts): detailSource resized and sharpened to the target, the lanczos3 base
   * of input and the blend at `strength`, each worker a band of rows, then the encode on one when `output` is given. Pixels already in shared memory are
   * not copied; the result is a Buffer over the shared output, and the encoded bytes are transferred, not copied.
   */
  finish(
    input: RawImage,
    detailSource: RawImage,
    target: { width: number; height: number; strength: number; output?: OutputEncoding },
    opts: RunOptions,
  ): Promise<RawImage & { encoded?: Buffer }>;
};

/** Runs the tasks on the pool; the first failure drops the rest, as a client going away does. */
async function runAll<T>(pool: WorkerPool, tasks: SrTask[], opts: RunOptions): Promise<T[]> {
  const stop = new AbortController();
  const signal = AbortSignal.any([opts.signal, stop.signal]);
  // Every waiting job listens for the abort: one listener per tile is expected, not a leak.
  setMaxListeners(tasks.length + 10, signal);
  const group = opts.group ?? Symbol("image");
  try {
    let done = 0;
    return await Promise.all(
      tasks.map((task, i) =>
        withSpan(`darkroom.enhance_${task.type}`, { index: i, of: tasks.length }, () =>
          pool.run<T>(task, { signal, group }),
        ).then((result) => {
          opts.onTaskDone?.(++done, tasks.length);
          return result;
        }),
      ),
    );
  } catch (err) {
    stop.abort(err);
    throw opts.signal.aborted ? opts.signal.reason : err;
  }
}

/** The network over the image in tiles across the workers, into shared memory at the model's scale. */
async function upscaleTiles(
  pool: WorkerPool,
  run: { model: ModelRef; info: ModelInfo; tileSize: number; overlap?: number },
  image: RawImage,
  opts: RunOptions,
): Promise<RawImage> {
  const { model, info } = run;
  const s = info.scale;
  const input: SharedImage = { ...image, data: await toShared(image.data) };
  const output: SharedImage = {
    data: new SharedArrayBuffer(image.width * s * image.height * s * 3),
    width: image.width * s,
    height: image.height * s,
    channels: 3,
  };
  // At least one tile per worker: a small image (a 4× input) would otherwise leave all but one core idle.
  const tiles = planTiles(image.width, image.height, run.tileSize, run.overlap ?? info.overlap, pool.size);
  const profiles = await runAll<TileProfile>(
    pool,
    tiles.map((tile) => ({ type: "tile", model, input, output, tile })),
    opts,
  );
  for (const p of profiles) {
    addTime(opts.profile, "tile cut (worker)", p.cut + p.place);
    addTime(opts.profile, "pixels ↔ tensors (worker)", p.toTensor + p.toPixels);
    addTime(opts.profile, "network (worker)", p.network);
  }
  const padded = tiles.reduce((a, t) => a + t.ew * t.eh, 0) / (image.width * image.height) - 1;
  addTime(opts.profile, "overlap: extra network pixels (%)", 100 * padded);
  return { data: bufferOf(output.data), width: output.width, height: output.height, channels: 3 };
}

/** The finish across the workers, a band of rows each (exactly the whole image's rows: finish.ts), then one encode. */
async function finishBands(
  pool: WorkerPool,
  input: RawImage,
  detailSource: RawImage,
  target: { width: number; height: number; strength: number; output?: OutputEncoding },
  opts: RunOptions,
): Promise<RawImage & { encoded?: Buffer }> {
  const { width, height, strength, output } = target;
  const out: SharedImage = {
    data: new SharedArrayBuffer(width * height * input.channels),
    width,
    height,
    channels: input.channels,
  };
  const shared = {
    input: { ...input, data: await toShared(input.data) },
    detailSource: { ...detailSource, data: await toShared(detailSource.data) },
  };
  const bands = planBands(height, pool.size);
  const t0 = performance.now();
  const tasks = bands.map((band): SrTask => ({ type: "finish", ...shared, strength, out, band }));
  const results = await runAll<FinishResult>(pool, tasks, opts);
  addTime(opts.profile, `sharpen, base, blend in ${bands.length} band(s) (wall)`, performance.now() - t0);
  for (const { timings } of results) {
    addTime(opts.profile, "sharpen of the network output (worker)", timings.sharpen);
    addTime(opts.profile, "lanczos3 base (worker)", timings.base);
    addTime(opts.profile, "strength blend (worker)", timings.blend);
  }
  let encoded: Uint8Array | undefined;
  if (output) {
    const [result] = await runAll<FinishResult>(pool, [{ type: "encode", out, output }], opts);
    addTime(opts.profile, `${output.format.toUpperCase()} encode (worker)`, result.timings.encode);
    encoded = result.encoded;
  }
  return {
    data: bufferOf(out.data),
    width,
    height,
    channels: input.channels,
    ...(encoded && { encoded: Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength) }),
  };
}

/** `threads`: each worker's ORT threads, which set the tile size (chooseTileSize). */
export function createUpscaler(pool: WorkerPool, threads = 1): Upscaler {
  const infos = new Map<string, Promise<ModelInfo>>();
  const describe = (model: ModelRef) => {
    const key = toModelKey(model);
    let info = infos.get(key);
    if (!info) {
      info = pool.run<ModelInfo>({ type: "info", model } satisfies SrTask);
      info.catch(() => infos.delete(key));
      infos.set(key, info);
    }
    return info;
  };
  return {
    describe,
    async upscale(model, image, opts) {
      const info = await describe(model);
      const tileSize = opts.tileSize ?? chooseTileSize(threads);
      return upscaleTiles(pool, { model, info, tileSize, overlap: opts.overlap }, image, opts);
    },
    finish: (input, detailSource, target, opts) => finishBands(pool, input, detailSource, target, opts),
  };
}
