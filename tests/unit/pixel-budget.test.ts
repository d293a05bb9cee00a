// Memory bounded by pixels, not by requests (issue 34): one budget of image data per process, shared by the upload
// gate and every decode. Beyond it a decode waits (a bounded few, for a bounded time) or is refused busy before it
// starts, so its unit comes back; whatever ends the work gives its pixels back; and work waiting for its turn holds
// its compressed upload, not its pixels.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import sharp from "sharp";
import { type Config, parseConfig } from "@/lib/config";
import { type EnhanceDeps, type EnhanceInput, enhanceImage } from "@/lib/enhance/enhance";
import { createEnhanceRoutes } from "@/lib/enhance/routes/remote-chain";
import type { EnhanceJob, EnhanceOutput } from "@/lib/enhance/types";
import { EnhanceFailed, InvalidImage, QueueFull } from "@/lib/errors";
import { createLocalStorage } from "@/lib/storage/local";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { PixelBudget, type PixelHold, pixelBytesOf } from "@/lib/work/pixel-budget";
import { WorkQueue } from "@/lib/work/queue";
import { UploadGate } from "@/lib/work/upload-gate";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-pixel-budget-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const budgetOf = (capacity: number, maxWaiting = 4, maxWaitMs = 120_000) =>
  new PixelBudget({ capacity, maxWaiting, maxWaitMs });
const tick = () => new Promise((r) => setImmediate(r));

describe("the pixel budget", () => {
  it("takes what fits at once, queues the rest in order, and refuses busy beyond its waiting line", async () => {
    const budget = budgetOf(100, 2);
    const a = await budget.take(60);
    assert.deepEqual(budget.stats, { used: 60, waiting: 0 });
    const order: string[] = [];
    const noted = (name: string) => (h: PixelHold) => {
      order.push(name);
      return h;
    };
    const b = budget.take(50).then(noted("b"));
    // c would fit beside a, but b waits before it: first come, first served, so a large decode is not starved.
    const c = budget.take(30).then(noted("c"));
    await tick();
    assert.deepEqual(budget.stats, { used: 60, waiting: 2 });
    await assert.rejects(budget.take(1), (e: unknown) => e instanceof QueueFull && e.retryAfterS > 0);
    a.release();
    const [hb, hc] = await Promise.all([b, c]);
    assert.deepEqual(order, ["b", "c"]);
    assert.deepEqual(budget.stats, { used: 80, waiting: 0 });
    hb.release();
    hb.release();
    hc.release();
    assert.deepEqual(budget.stats, { used: 0, waiting: 0 }, "each hold gives back once, whatever the calls");
  });

  it("refuses busy a decode that waited past its bound, and gives the place of one whose caller left", async () => {
    const budget = budgetOf(100, 4, 50);
    const a = await budget.take(100);
    await assert.rejects(budget.take(10), QueueFull);
    const gone = new AbortController();
    const leaving = budget.take(10, gone.signal);
    await tick();
    assert.equal(budget.stats.waiting, 1);
    gone.abort(new Error("client left"));
    await assert.rejects(leaving, /client left/);
    assert.deepEqual(budget.stats, { used: 100, waiting: 0 });
    a.release();
    assert.deepEqual(budget.stats, { used: 0, waiting: 0 });
  });

  it("lets a decode larger than the whole budget run alone rather than never", async () => {
    const budget = budgetOf(100);
    const small = await budget.take(10);
    const huge = budget.take(500);
    await tick();
    assert.equal(budget.stats.waiting, 1);
    small.release();
    const held = await huge;
    assert.deepEqual(budget.stats, { used: 500, waiting: 0 });
    const next = budget.take(1);
    await tick();
    assert.equal(budget.stats.waiting, 1, "nothing else decodes beside it");
    held.release();
    (await next).release();
    assert.deepEqual(budget.stats, { used: 0, waiting: 0 });
  });

  it("counts upload bytes as they arrive in the same budget, and never lets waiting uploads starve the decodes", async () => {
    const budget = budgetOf(1000);
    const gate = new UploadGate({
      capacity: 10_000,
      maxFileBytes: 400,
      idleTimeoutMs: 1000,
      timeoutMs: 5000,
      pixels: budget,
    });
    const decode = await budget.take(700);
    const slot = gate.open({ identity: "key:a", plan: "pro" });
    slot.grow(200);
    assert.equal(budget.stats.used, 900);
    assert.throws(() => slot.grow(200), QueueFull);
    slot.release();
    assert.equal(budget.stats.used, 700, "a refused upload's bytes come back");
    // Uploads whose work waits hold their bytes; a second decode that does not fit beside them and the first waits.
    const waitingUploads = [1, 2, 3].map((i) => {
      const upload = gate.open({ identity: `key:${i}`, plan: "pro" });
      upload.grow(100);
      upload.arrived();
      return upload;
    });
    const second = budget.take(400);
    await tick();
    assert.deepEqual(budget.stats, { used: 1000, waiting: 1 });
    // Once no decode holds pixels, the next goes even though the uploads fill the budget: they wait on it.
    decode.release();
    const held = await second;
    assert.deepEqual(budget.stats, { used: 700, waiting: 0 });
    const third = budget.take(700);
    await tick();
    assert.equal(budget.stats.waiting, 1);
    held.release();
    (await third).release();
    for (const upload of waitingUploads) upload.release();
    assert.deepEqual(budget.stats, { used: 0, waiting: 0 });
  });
});

/** An enhancer whose runs wait until the test lets them end, with a result or an error, or their signal aborts. */
function heldEnhancer() {
  const runs: { job: EnhanceJob; finish: (err?: Error) => void }[] = [];
  const run = (job: EnhanceJob) =>
    new Promise<EnhanceOutput>((resolve, reject) => {
      job.signal.addEventListener("abort", () => reject(job.signal.reason), { once: true });
      runs.push({
        job,
        finish: (err) => {
          if (err) return reject(err);
          const data = Buffer.alloc(job.width * job.height * job.image.channels, 128);
          resolve({ data, width: job.width, height: job.height, channels: job.image.channels, engine: "test" });
        },
      });
    });
  return { run, runs };
}

async function photo(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: "#47a" } })
    .png()
    .toBuffer();
}

function depsOf(config: Config, pixels: PixelBudget, queue: WorkQueue, enhancer: ReturnType<typeof heldEnhancer>) {
  const dir = fs.mkdtempSync(path.join(root, "d-"));
  return (signal: AbortSignal, events: string[]): EnhanceDeps => ({
    requestId: "req",
    origin: "http://127.0.0.1",
    storage: createLocalStorage(dir, undefined),
    images: openSqliteBackend(dir).images,
    owner: "key:test",
    retentionDays: 1,
    config,
    queue,
    pixels,
    enhancer,
    routes: createEnhanceRoutes(config),
    signal,
    onStart: () => void events.push("start"),
    onQueued: () => void events.push("queued"),
    onProgress: (p) => void events.push(p.stage),
  });
}

const input = (bytes: Buffer): EnhanceInput => ({ bytes, strength: 1, scale: 2, model: "fast" });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), "the condition held within 10 s");
};

describe("enhanceImage and the pixel budget", () => {
  const config = parseConfig({ DATA_DIR: root });
  // 64×48 RGB to 128×96: the input's pixels and the output's.
  const cost = pixelBytesOf({ width: 64, height: 48, channels: 3 }, { width: 128, height: 96, channels: 3 });

  it("holds a queued job's upload compressed: only the running job's pixels are taken, and all come back", async () => {
    const pixels = budgetOf(10 * cost);
    const enhancer = heldEnhancer();
    const deps = depsOf(config, pixels, new WorkQueue("pixels-test", 1, 4), enhancer);
    const [first, second] = [[], []] as string[][];
    const a = enhanceImage(input(await photo(64, 48)), deps(new AbortController().signal, first));
    await until(() => enhancer.runs.length === 1);
    const b = enhanceImage(input(await photo(64, 48)), deps(new AbortController().signal, second));
    await until(() => second.includes("queued"));
    assert.deepEqual(pixels.stats, { used: cost, waiting: 0 }, "the waiting job holds no pixels");
    assert.deepEqual(second, ["queued"], "nor is it decoded or started");
    enhancer.runs[0].finish();
    const result = await a;
    assert.equal(result.enhancedSize, "128x96");
    await until(() => enhancer.runs.length === 2);
    assert.deepEqual(pixels.stats, { used: cost, waiting: 0 });
    assert.deepEqual(second.slice(0, 3), ["queued", "start", "decoding"]);
    enhancer.runs[1].finish();
    await b;
    assert.deepEqual(pixels.stats, { used: 0, waiting: 0 });
  });

  it("refuses busy, before the start (so its unit comes back), a job that waited too long for pixels", async () => {
    const pixels = budgetOf(cost, 4, 100);
    const enhancer = heldEnhancer();
    const deps = depsOf(config, pixels, new WorkQueue("pixels-test-2", 2, 4), enhancer);
    const events: string[] = [];
    const running = enhanceImage(input(await photo(64, 48)), deps(new AbortController().signal, []));
    await until(() => enhancer.runs.length === 1);
    await assert.rejects(
      enhanceImage(input(await photo(64, 48)), deps(new AbortController().signal, events)),
      QueueFull,
    );
    assert.deepEqual(events, [], "never started, never decoded");
    enhancer.runs[0].finish();
    await running;
    assert.deepEqual(pixels.stats, { used: 0, waiting: 0 });
  });

  it("gives the pixels back when the engine fails, the caller leaves, or the upload does not decode", async () => {
    const pixels = budgetOf(10 * cost);
    const enhancer = heldEnhancer();
    const deps = depsOf(config, pixels, new WorkQueue("pixels-test-3", 4, 4), enhancer);
    const failing = enhanceImage(input(await photo(64, 48)), deps(new AbortController().signal, []));
    const leaving = new AbortController();
    const left = enhanceImage(input(await photo(64, 48)), deps(leaving.signal, []));
    await until(() => enhancer.runs.length === 2);
    assert.equal(pixels.stats.used, 2 * cost);
    enhancer.runs[0].finish(new Error("the engine broke"));
    await assert.rejects(failing, EnhanceFailed);
    leaving.abort(new Error("client left"));
    await assert.rejects(left, /client left/);
    assert.deepEqual(pixels.stats, { used: 0, waiting: 0 });

    // A truncated JPEG passes the header check, takes its pixels, and fails to decode: they come back.
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#47a" } })
      .jpeg()
      .toBuffer();
    await assert.rejects(
      enhanceImage(input(jpeg.subarray(0, jpeg.length - 40)), deps(new AbortController().signal, [])),
      InvalidImage,
    );
    assert.deepEqual(pixels.stats, { used: 0, waiting: 0 });
  });
});
