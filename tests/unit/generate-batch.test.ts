// generateImages with an engine that batches: one call for all n images, one library record and seed per image,
// and what a batch did not make asked for one image at a time with the seeds it missed.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { MODELS } from "@/lib/catalog/models";
import { generateImages } from "@/lib/engines/generate";
import type { GeneratedImage, GenerateJob, ImageEngine } from "@/lib/engines/types";
import { GenerationFailed } from "@/lib/errors";
import { createLocalStorage } from "@/lib/storage/local";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { WorkQueue } from "@/lib/work/queue";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-batch-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const { width, height } = MODELS["beta-3"].sizes["1:1"];
let png: Buffer;
before(async () => {
  png = await sharp({ create: { width, height, channels: 3, background: "#336" } })
    .png()
    .toBuffer();
});

/** An engine that batches like a GPU pool, making the images of `batchMade` (offsets into the batch) only. */
function batchingEngine(batchMade: number[] | "fail") {
  const calls: { count?: number; seed?: number }[] = [];
  const image = (seed: number | undefined): GeneratedImage => ({ png, width, height, seed, engine: "a1111:test" });
  const engine: ImageEngine = {
    id: "a1111:test",
    ai: true,
    batchSize: (job: GenerateJob) => job.count ?? 1,
    async generate(job) {
      calls.push({ count: job.count, seed: job.seed });
      if (!job.count) return image(job.seed);
      if (batchMade === "fail") throw new GenerationFailed("every server failed");
      const seed = job.seed ?? 1000;
      const [first, ...more] = batchMade.map((offset) => image(seed + offset));
      return { ...first, more };
    },
  };
  return { engine, calls };
}

async function run(engine: ImageEngine, seed: number | undefined) {
  const dir = fs.mkdtempSync(path.join(root, "d-"));
  const backend = openSqliteBackend(dir);
  const result = await generateImages(
    { prompt: "a lighthouse", model: "beta-3", style: "Anime", ratio: "1:1", seed, n: 4 },
    {
      engines: { engineFor: () => engine },
      requestId: "req_batch",
      signal: new AbortController().signal,
      storage: createLocalStorage(dir, undefined),
      queue: new WorkQueue("batch-test", 2, 10),
      origin: "http://127.0.0.1:3000",
      images: backend.images,
      owner: "key_batch",
      retentionDays: 0,
    },
  );
  await backend.close();
  return result;
}

describe("generateImages with a batching engine", () => {
  it("makes n images in one call, each stored with its own id and seed", async () => {
    const { engine, calls } = batchingEngine([0, 1, 2, 3]);
    const { images, failed } = await run(engine, 40);
    assert.deepEqual(calls, [{ count: 4, seed: 40 }]);
    assert.deepEqual(
      images.map((i) => i.seed),
      [40, 41, 42, 43],
    );
    assert.equal(new Set(images.map((i) => i.id)).size, 4);
    assert.equal(failed, 0);
  });

  it("asks one at a time for the images a batch missed, with the seeds it missed", async () => {
    const { engine, calls } = batchingEngine([2, 3]);
    const { images, failed } = await run(engine, 40);
    assert.deepEqual(calls[0], { count: 4, seed: 40 });
    assert.deepEqual(
      calls
        .slice(1)
        .map((c) => [c.count, c.seed])
        .sort(),
      [
        [undefined, 40],
        [undefined, 41],
      ],
    );
    assert.deepEqual(images.map((i) => i.seed).sort(), [40, 41, 42, 43]);
    assert.equal(failed, 0);
  });

  it("fails as a whole when the batch call fails, and asks for nothing more", async () => {
    const { engine, calls } = batchingEngine("fail");
    await assert.rejects(run(engine, 40), GenerationFailed);
    assert.equal(calls.length, 1);
  });
});
