// The inference workers with the real models on one worker: sessions kept per worker are bounded (LRU), and one
// image's tiles do not hold back another image's.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import type { ModelRef, SrTask } from "@/lib/enhance/neural/protocol";
import { planTiles } from "@/lib/enhance/neural/tiles";
import { createUpscaler, type Upscaler } from "@/lib/enhance/neural/upscale";
import { loadTestPhoto } from "../fixtures/photos";

const ROOT = path.resolve(__dirname, "../..");
const signal = new AbortController().signal;
const slim2: ModelRef = { kind: "package", pkg: "esrgan-slim", scale: 2, precision: "fp32" };
const slim4: ModelRef = { kind: "package", pkg: "esrgan-slim", scale: 4, precision: "fp32" };
const medium2: ModelRef = { kind: "package", pkg: "esrgan-medium", scale: 2, precision: "fp32" };

describe("inference workers", () => {
  let pool: WorkerPool;
  let upscaler: Upscaler;
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-workers-"));
    pool = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 1,
      workerData: { root: ROOT, cacheDir: path.join(tmp, "models"), threads: 1, device: "cpu", maxSessions: 2 },
    });
    upscaler = createUpscaler(pool);
  });
  after(async () => {
    await pool.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const openSessions = () => pool.run<string[]>({ type: "sessions" } satisfies SrTask);
  const touch = (model: ModelRef) => pool.run({ type: "info", model } satisfies SrTask);

  it("keeps at most two sessions per worker, releasing the least recently used", async () => {
    await touch(slim2);
    await touch(slim4);
    assert.deepEqual(await openSessions(), ["esrgan-slim-x2", "esrgan-slim-x4"]);
    await touch(slim2); // now the most recent
    await touch(medium2);
    assert.deepEqual(await openSessions(), ["esrgan-slim-x2", "esrgan-medium-x2"], "slim x4 was released");
    // A released model opens again on its next use and still works.
    const img = await loadTestPhoto(24, 16);
    const out = await upscaler.upscale(slim4, img, { signal });
    assert.deepEqual([out.width, out.height], [96, 64]);
    assert.deepEqual(await openSessions(), ["esrgan-medium-x2", "esrgan-slim-x4"]);
  });

  it("finishes a one-tile image long before a many-tile image started just ahead of it", async () => {
    const big = await loadTestPhoto(256, 256);
    const small = await loadTestPhoto(32, 32);
    const tileSize = 32;
    const bigTiles = planTiles(256, 256, tileSize, 10).length;
    await upscaler.describe(slim2); // session open, so both images only wait for tiles
    const done: string[] = [];
    const completedAtStart = pool.stats.completed;
    let bigTilesWhenSmallDone = -1;
    const bigRun = upscaler.upscale(slim2, big, { signal, tileSize }).then(() => done.push("big"));
    const smallRun = upscaler.upscale(slim2, small, { signal, tileSize }).then(() => {
      done.push("small");
      bigTilesWhenSmallDone = pool.stats.completed - completedAtStart - 1;
    });
    await Promise.all([bigRun, smallRun]);
    assert.deepEqual(done, ["small", "big"]);
    // Round-robin: the small image waited for about one of the big image's tiles, not for all of them.
    assert.ok(bigTilesWhenSmallDone <= 2, `${bigTilesWhenSmallDone} of ${bigTiles} big tiles ran first`);
  });
});
