// Runs a super-resolution model over an image on the worker pool, tile by tile, so one image uses every idle worker.
import type { RawImage } from "../types";
import type { WorkerPool } from "./pool";
import { type ModelInfo, type ModelRef, type SrTask, type TileResult, toModelKey } from "./protocol";
import { extractRegion, placeTile, planTiles } from "./tiles";

/** Input pixels per tile side. 256 keeps a session's working set near 250 MB; 512 needs ~900 MB. */
export const DEFAULT_TILE_SIZE = 256;

export type Upscaler = {
  describe(model: ModelRef): Promise<ModelInfo>;
  /** Packed RGB at the model's native scale; alpha, if any, is ignored. */
  upscale(
    model: ModelRef,
    image: RawImage,
    opts: { signal: AbortSignal; tileSize?: number; overlap?: number },
  ): Promise<RawImage>;
};

export function createUpscaler(pool: WorkerPool): Upscaler {
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
      const s = info.scale;
      const outWidth = image.width * s;
      const out = new Uint8Array(outWidth * image.height * s * 3);
      const tiles = planTiles(
        image.width,
        image.height,
        opts.tileSize ?? DEFAULT_TILE_SIZE,
        opts.overlap ?? info.overlap,
      );
      // One failed tile stops the rest: queued tiles are dropped, as they are when the client goes away.
      const stop = new AbortController();
      const signal = AbortSignal.any([opts.signal, stop.signal]);
      try {
        await Promise.all(
          tiles.map(async (t) => {
            const data = extractRegion(image.data, image.width, image.channels, t);
            const task: SrTask = {
              type: "tile",
              model,
              data,
              width: t.ew,
              height: t.eh,
              crop: { x: t.x - t.ex, y: t.y - t.ey, w: t.w, h: t.h },
            };
            const res = await pool.run<TileResult>(task, { transfer: [data.buffer as ArrayBuffer], signal });
            placeTile(out, outWidth, t, s, res.data);
          }),
        );
      } catch (err) {
        stop.abort(err);
        throw opts.signal.aborted ? opts.signal.reason : err;
      }
      return {
        data: Buffer.from(out.buffer, out.byteOffset, out.byteLength),
        width: outWidth,
        height: image.height * s,
        channels: 3,
      };
    },
  };
}
