// The BullMQ work tier (issue 31, contract 1.3): two web instances and worker processes (`npm run worker`) on one
// real redis-server (persistent) and one image folder, a ComfyUI fake whose steps take time, an AUTOMATIC1111 fake
// and the preview engine. Jobs wait while no worker lives (and status says why), run once one starts, survive a
// worker's SIGKILL (charged, stored and delivered once), its SIGTERM and a Redis restart, fail with units back past
// the retry limit, and answer synchronous requests as an inline instance does. Pro goes first, no key holds every
// worker, and a GPU server's cap holds across workers.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createClient } from "redis";
import sharp from "sharp";
import { OUTCOMES_KEY, STALLS_KEY } from "@/lib/tier/names";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import type { Fake } from "../fakes/fake-server";
import { FAL_KEY, startFalFake } from "../fakes/fal";
import { type App, createKey, ROOT, startApp, tempDataDir } from "../helpers/app";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { hasRedisServer, type RedisServer, startRedisServer } from "../helpers/redis-server";
import { type Receiver, startReceiver } from "../helpers/webhook-receivers";

const WAIT_MS = 120_000;
const A1111_SDXL = "sd_xl_base_1.0.safetensors";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type WorkerProc = {
  id: Promise<string>;
  logs: () => string;
  alive: () => boolean;
  kill: () => void;
  terminate: () => Promise<number | null>;
};

let redis: RedisServer;
let comfy: ComfyFake;
let a1111: A1111Fake;
let fal: Fake;
let receiver: Receiver;
let a: App;
let b: App;
let inline: App;
let env: Record<string, string>;
const workers: WorkerProc[] = [];
let redisClient: ReturnType<typeof createClient>;

/** Starts `npm run worker`'s entry (worker.ts) as its own process group; `id` resolves once it is ready. */
function startWorker(extraEnv: Record<string, string> = {}): WorkerProc {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const id = (async () => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const ready = /ready as (worker_[a-f0-9]+)/.exec(output);
      if (ready) return ready[1];
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`worker exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
      }
      if (Date.now() > deadline) throw new Error(`worker did not start in time:\n${output}`);
      await sleep(100);
    }
  })();
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const proc: WorkerProc = {
    id,
    logs: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid ?? 0), "SIGKILL");
    },
    terminate: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid ?? 0), "SIGTERM");
      return exited;
    },
  };
  // A worker stopped before it was ready is no failure unless a test waits for it.
  id.catch(() => undefined);
  workers.push(proc);
  return proc;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, everyMs = 250): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

const asyncHeaders = (key?: string) => ({
  Prefer: "respond-async",
  ...(key ? { Authorization: `Bearer ${key}` } : BROWSER),
});

async function jobOf(app: App, id: string, key?: string, from?: string) {
  const res = await call(app.url, `/api/jobs/${id}`, {
    headers: key ? { Authorization: `Bearer ${key}` } : BROWSER,
    from,
  });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function finished(app: App, id: string, key?: string, from?: string) {
  // Once a second: job reads have their own guard of 120 a minute per caller.
  return until(
    `job ${id} to finish`,
    async () => {
      const job = await jobOf(app, id, key, from);
      return ["succeeded", "failed", "canceled"].includes(job.status) && job;
    },
    1000,
  );
}

/** The worker process whose BullMQ lock holds a job now (its `processedBy`). */
async function workerRunning(jobId: string): Promise<WorkerProc> {
  const name = await until(`a worker to take ${jobId}`, async () => {
    const pb = await redisClient.hGet(`bull:darkroom-generate:${jobId}`, "pb");
    return pb ?? undefined;
  });
  for (const w of workers) if ((await w.id.catch(() => "")) === name) return w;
  throw new Error(`no worker process is ${name}`);
}

/** Stops every live worker (SIGTERM, each finishing its job), then starts `count` with `extraEnv`, ready. */
async function replaceWorkers(count: number, extraEnv: Record<string, string> = {}): Promise<WorkerProc[]> {
  for (const w of workers.filter((x) => x.alive())) await w.terminate();
  const started = Array.from({ length: count }, () => startWorker(extraEnv));
  await Promise.all(started.map((w) => w.id));
  return started;
}

const skip = hasRedisServer() ? false : "redis-server is not installed";

before(async () => {
  if (skip) return;
  // Persistent, so that a restart mid-run keeps the queues, as an operator's Redis does (docs/scaling.md).
  redis = await startRedisServer({ persist: true });
  redisClient = createClient({ url: redis.url });
  // The client lives through the Redis restart below: its reconnection errors are expected.
  redisClient.on("error", () => undefined);
  await redisClient.connect();
  comfy = await startComfyFake({ name: "comfy-tier" });
  a1111 = await startA1111Fake();
  fal = await startFalFake();
  receiver = await startReceiver();
  const dataDir = tempDataDir("work-tier");
  env = {
    REDIS_URL: redis.url,
    REDIS_TIMEOUT_MS: "10000",
    KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
    WORK_TIER: "bullmq",
    WORKER_CONCURRENCY: "1",
    WORK_STALL_CHECK_MS: "2000",
    WORK_STALL_LIMIT: "2",
    DATA_DIR: dataDir,
    COMFYUI_URLS: comfy.url,
    MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl",
    A1111_URLS: a1111.url,
    A1111_AUTH,
    MODEL_BETA_3: `a1111:${A1111_SDXL}`,
    // One cloud route, to see a provider's 429 through the tier; the other models stay on the preview engine.
    FAL_KEY,
    FAL_BASE_URL: fal.url,
    MODEL_ALPHA_SCHNELL: "fal:fal-ai/flux/schnell",
    MODEL_ALPHA_PRO: "preview",
    GENERATION_TIMEOUT_MS: "100000",
    FREE_GENERATIONS_PER_DAY: "100",
    WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
  };
  a = await startApp({ name: "tier-a", dataDir, env });
  b = await startApp({ name: "tier-b", dataDir, env });
  const { DATA_DIR: _d, REDIS_URL: _r, KEY_PEPPER: _k, WORK_TIER: _t, ...inlineEnv } = env;
  inline = await startApp({ name: "tier-inline", env: inlineEnv });
});

after(async () => {
  for (const w of workers) w.kill();
  await Promise.all([a?.stop(), b?.stop(), inline?.stop()]);
  // Closed at once: a polite QUIT could wait forever on a client still reconnecting after the restart.
  redisClient?.destroy();
  await comfy?.close();
  await a1111?.close();
  await fal?.close();
  await receiver?.close();
  await redis?.close();
});

describe("the BullMQ work tier", { skip }, () => {
  it("keeps a job waiting while no worker lives, says why in status, and runs it once a worker starts", async () => {
    const from = "127.0.4.1";
    const accepted = await generate(a.url, { prompt: "a quiet harbour", seed: 7 }, { from, headers: asyncHeaders() });
    assert.equal(accepted.status, 202, accepted.text);
    await sleep(3000);
    const waiting = await jobOf(b, accepted.json.id, undefined, from);
    assert.equal(waiting.status, "queued");
    const status = await call(b.url, "/api/status", { headers: BROWSER, from });
    assert.equal(status.json.status, "degraded");
    assert.ok(
      status.json.degraded_reasons.some((r: string) => /no live workers/i.test(r)),
      JSON.stringify(status.json.degraded_reasons),
    );

    startWorker();
    startWorker();
    const done = await finished(b, accepted.json.id, undefined, from);
    assert.equal(done.status, "succeeded", JSON.stringify(done));
    assert.equal(done.result.engine, "preview");
    assert.equal((await call(a.url, new URL(done.result.url).pathname)).status, 200);
    await until("status to be ok with workers alive", async () => {
      const s = await call(a.url, "/api/status", { headers: BROWSER, from });
      return !s.json.degraded_reasons.some((r: string) => /no live workers/i.test(r));
    });
  });

  it("answers synchronous and async requests on both instances as an inline instance does", async () => {
    const body = { prompt: "a red kite over fields", seed: 42, n: 2 };
    const viaInline = await generate(inline.url, body, { from: "127.0.4.2" });
    assert.equal(viaInline.status, 200, viaInline.text);
    for (const [i, app] of [a, b].entries()) {
      const from = `127.0.4.${3 + i}`;
      const sync = await generate(app.url, body, { from });
      assert.equal(sync.status, 200, sync.text);
      assert.deepEqual(Object.keys(sync.json).sort(), Object.keys(viaInline.json).sort());
      for (const field of ["model", "ratio", "width", "height", "seed", "engine", "ai", "usage", "remaining"]) {
        assert.deepEqual(sync.json[field], viaInline.json[field], field);
      }
      assert.equal(sync.json.images.length, 2);
      const [mine, theirs] = await Promise.all([
        call(app.url, new URL(sync.json.url).pathname),
        call(inline.url, new URL(viaInline.json.url).pathname),
      ]);
      assert.deepEqual(mine.body, theirs.body, "the same seed makes the same image");
      assert.equal(sync.headers["x-ratelimit-remaining"], viaInline.headers["x-ratelimit-remaining"]);

      const accepted = await generate(app.url, body, { from, headers: asyncHeaders() });
      assert.equal(accepted.status, 202, accepted.text);
      const job = await finished(app === a ? b : a, accepted.json.id, undefined, from);
      assert.equal(job.status, "succeeded");
      assert.deepEqual(Object.keys(job.result).sort(), Object.keys(viaInline.json).sort());
    }

    // A model on the AUTOMATIC1111 server: the worker calls it, and the image is the one inline makes.
    const gpuBody = { prompt: "a quiet harbour", model: "beta-3", seed: 5 };
    const gpuInline = await generate(inline.url, gpuBody, { from: "127.0.4.8" });
    const gpuTier = await generate(a.url, gpuBody, { from: "127.0.4.9" });
    assert.equal(gpuTier.status, 200, gpuTier.text);
    assert.equal(gpuTier.json.engine, `a1111:${A1111_SDXL}`);
    assert.equal(gpuTier.json.engine, gpuInline.json.engine);
    const [tierImage, inlineImage] = await Promise.all([
      call(a.url, new URL(gpuTier.json.url).pathname),
      call(inline.url, new URL(gpuInline.json.url).pathname),
    ]);
    assert.deepEqual(tierImage.body, inlineImage.body, "the same seed makes the same image");

    // An enhancement, its upload carried to the worker through the storage's temporary area.
    const photo = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#3a6" } })
      .png()
      .toBuffer();
    const upload = { image: { data: photo, type: "image/png", name: "p.png" }, strength: "0.4" };
    const inlineEnhanced = await enhance(inline.url, upload, { from: "127.0.4.6" });
    const tierEnhanced = await enhance(b.url, upload, { from: "127.0.4.7" });
    assert.equal(tierEnhanced.status, 200, tierEnhanced.text);
    assert.deepEqual(Object.keys(tierEnhanced.json).sort(), Object.keys(inlineEnhanced.json).sort());
    assert.equal(tierEnhanced.json.enhanced_size, inlineEnhanced.json.enhanced_size);
    assert.equal(tierEnhanced.json.original_size, "300x200");

    // A failure answers the same error: a model whose only route fails.
    comfy.mode = "error";
    try {
      const failedInline = await generate(inline.url, { prompt: "a storm", model: "gamma-xl-1024-v1-0" });
      const failedTier = await generate(a.url, { prompt: "a storm", model: "gamma-xl-1024-v1-0" });
      assert.equal(failedTier.status, failedInline.status, failedTier.text);
      assert.equal(failedTier.json.error.code, failedInline.json.error.code);
      assert.equal(failedTier.json.error.message, failedInline.json.error.message);
    } finally {
      comfy.mode = "ok";
    }
  });

  it("answers /v1 image generations through the tier as inline does, b64_json included", async () => {
    const body = JSON.stringify({ prompt: "a lantern on a jetty", n: 2, seed: 9 });
    const ask = async (app: App) => {
      const { key } = await createKey(app, "tier-v1");
      return call(app.url, "/v1/images/generations", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body,
      });
    };
    const [viaTier, viaInline] = [await ask(b), await ask(inline)];
    assert.equal(viaTier.status, 200, viaTier.text);
    assert.equal(viaInline.status, 200, viaInline.text);
    assert.deepEqual(Object.keys(viaTier.json).sort(), Object.keys(viaInline.json).sort());
    assert.equal(viaTier.json.size, viaInline.json.size);
    assert.equal(viaTier.json.data.length, 2);
    for (const [i, item] of viaTier.json.data.entries()) {
      assert.deepEqual(Object.keys(item).sort(), Object.keys(viaInline.json.data[i]).sort());
      assert.equal(item.b64_json, viaInline.json.data[i].b64_json, "the same seed makes the same image");
    }
  });

  it("runs streamed /v1 generations through the tier too, answering the completed event inline would", async () => {
    const body = JSON.stringify({ prompt: "a kite over dunes", seed: 4, stream: true, partial_images: 2 });
    const ask = async (app: App) => {
      const { key } = await createKey(app, "tier-v1-stream");
      const res = await call(app.url, "/v1/images/generations", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body,
      });
      assert.equal(res.status, 200, res.text);
      assert.match(String(res.headers["content-type"]), /^text\/event-stream/);
      return [...res.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
    };
    const ranBefore = Number((await redisClient.hGet(OUTCOMES_KEY, "succeeded")) ?? 0);
    const viaTier = await ask(a);
    assert.equal(Number(await redisClient.hGet(OUTCOMES_KEY, "succeeded")), ranBefore + 1, "a worker ran it");
    const viaInline = await ask(inline);
    // The preview engine offers no previews, so inline sends the completed event alone too.
    assert.deepEqual(
      viaTier.map((e) => e.type),
      ["image_generation.completed"],
    );
    assert.deepEqual(
      viaInline.map((e) => e.type),
      ["image_generation.completed"],
    );
    assert.deepEqual(Object.keys(viaTier[0]).sort(), Object.keys(viaInline[0]).sort());
    assert.equal(viaTier[0].b64_json, viaInline[0].b64_json, "the same seed makes the same image");
    assert.equal(viaTier[0].size, viaInline[0].size);
  });

  it("waits out a provider's 429 Retry-After on the whole queue, then runs the job instead of failing it", async () => {
    const { key } = await createKey(a, "tier-429");
    fal.reset();
    fal.mode = "capacity";
    try {
      const accepted = await generate(
        a.url,
        { prompt: "a heron at dawn", model: "alpha-schnell" },
        { headers: asyncHeaders(key) },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const id = accepted.json.id;
      await until("the provider's 429", async () => fal.requests.length > 0, 50);
      const limitedAt = Date.now();
      // The fake's 429 says Retry-After: 3. Meanwhile the job waits in the queue, neither failed nor sent again.
      await until("the job back in the queue", async () => (await jobOf(b, id, key)).status === "queued", 500);
      await sleep(1000);
      assert.equal(fal.requests.length, 1, "no call while the queue waits out Retry-After");
      fal.mode = "ok";
      await until("the call after the limit", async () => fal.requests.length > 1, 50);
      assert.ok(Date.now() - limitedAt >= 2500, "the queue waited for Retry-After");
      const done = await finished(b, id, key);
      assert.equal(done.status, "succeeded", JSON.stringify(done));
      const status = await call(b.url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(status.json.usage_today, 1, "one unit");
    } finally {
      fal.mode = "ok";
    }
  });

  it("answers a synchronous request busy at once when every provider answers 429, as inline does", async () => {
    fal.mode = "capacity";
    try {
      const viaInline = await generate(
        inline.url,
        { prompt: "a heron", model: "alpha-schnell" },
        { from: "127.0.4.30" },
      );
      const viaTier = await generate(a.url, { prompt: "a heron", model: "alpha-schnell" }, { from: "127.0.4.31" });
      assert.equal(viaTier.status, 503, viaTier.text);
      assert.equal(viaTier.status, viaInline.status, viaInline.text);
      assert.equal(viaTier.json.error.code, viaInline.json.error.code);
      assert.ok(Number(viaTier.headers["retry-after"]) > 0);
    } finally {
      fal.mode = "ok";
    }
  });

  it("finishes a job whose worker was SIGKILLed on another: one unit, one image, one webhook", async () => {
    const { key } = await createKey(a, "tier-kill");
    comfy.stepDelayMs = 400;
    try {
      const accepted = await generate(
        a.url,
        { prompt: "a lighthouse in a gale", model: "gamma-xl-1024-v1-0", webhook_url: receiver.url },
        { headers: { Authorization: `Bearer ${key}` } },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const id = accepted.json.id;
      const steps = comfy.stepsSent;
      const victim = await workerRunning(id);
      await until("the engine to start", async () => comfy.stepsSent > steps);
      victim.kill();
      const replacement = startWorker();
      await replacement.id;
      const done = await finished(b, id, key);
      assert.equal(done.status, "succeeded", JSON.stringify(done));

      await sleep(3000);
      const hooks = receiver.got.filter((g) => JSON.parse(g.body).data.id === id);
      assert.equal(hooks.length, 1, "one webhook");
      const status = await call(b.url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(status.json.usage_today, 1, "one unit");
      const images = await call(b.url, "/api/images", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(images.json.images.length, 1, "one image");
    } finally {
      comfy.stepDelayMs = 0;
    }
  });

  it("lets a SIGTERMed worker finish the job it runs, and exit 0", async () => {
    const { key } = await createKey(a, "tier-term");
    comfy.stepDelayMs = 200;
    try {
      const accepted = await generate(
        b.url,
        { prompt: "a kestrel hovering", model: "gamma-xl-1024-v1-0" },
        { headers: asyncHeaders(key) },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const steps = comfy.stepsSent;
      const leaving = await workerRunning(accepted.json.id);
      await until("the engine to start", async () => comfy.stepsSent > steps);
      const code = await leaving.terminate();
      assert.equal(code, 0, leaving.logs());
      const done = await finished(a, accepted.json.id, key);
      assert.equal(done.status, "succeeded", JSON.stringify(done));
      startWorker();
    } finally {
      comfy.stepDelayMs = 0;
    }
  });

  it("carries a cancel made on another instance, and a client's hang-up, to the engine on the worker", async () => {
    const { key } = await createKey(a, "tier-cancel");
    const interrupts = () => comfy.requests.filter((r) => r.path.endsWith("/interrupt")).length;
    comfy.stepDelayMs = 400;
    try {
      const accepted = await generate(
        a.url,
        { prompt: "a slow tide", model: "gamma-xl-1024-v1-0" },
        { headers: asyncHeaders(key) },
      );
      assert.equal(accepted.status, 202, accepted.text);
      let steps = comfy.stepsSent;
      await until("the engine to start", async () => comfy.stepsSent > steps);
      let before = interrupts();
      const canceled = await call(b.url, `/api/jobs/${accepted.json.id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${key}` },
      });
      assert.equal(canceled.status, 200, canceled.text);
      assert.equal(canceled.json.status, "canceled");
      await until("the engine's interrupt after the cancel", async () => interrupts() > before);

      // A synchronous request whose client goes away mid-run.
      const client = new AbortController();
      steps = comfy.stepsSent;
      const abandoned = fetch(`${a.url}/api/generate`, {
        method: "POST",
        headers: { ...BROWSER, "Content-Type": "application/json" },
        body: JSON.stringify({ prompt: "a slow wave", model: "gamma-xl-1024-v1-0" }),
        signal: client.signal,
      }).catch(() => undefined);
      await until("the engine to start again", async () => comfy.stepsSent > steps);
      before = interrupts();
      client.abort();
      await abandoned;
      await until("the engine's interrupt after the hang-up", async () => interrupts() > before);
    } finally {
      comfy.stepDelayMs = 0;
    }
  });

  it("starts a Pro job queued after ten Free jobs before them", async () => {
    // One worker left, running one job at a time, held busy by a paused GPU server.
    const live = workers.filter((w) => w.alive());
    assert.ok(live.length > 0);
    await Promise.all(live.map((w) => w.id));
    for (const w of live.slice(1)) await w.terminate();
    const { key } = await createKey(a, "tier-priority");
    comfy.paused = true;
    const ids: { id: string; from?: string; key?: string }[] = [];
    try {
      const blocker = await generate(
        a.url,
        { prompt: "a blocking job", model: "gamma-xl-1024-v1-0" },
        { headers: asyncHeaders(key) },
      );
      assert.equal(blocker.status, 202, blocker.text);
      await workerRunning(blocker.json.id);
      for (let i = 0; i < 10; i++) {
        const from = `127.0.5.${i + 1}`;
        const free = await generate(b.url, { prompt: `a free job ${i}` }, { from, headers: asyncHeaders() });
        assert.equal(free.status, 202, free.text);
        ids.push({ id: free.json.id, from });
      }
      const pro = await generate(a.url, { prompt: "a pro job" }, { headers: asyncHeaders(key) });
      assert.equal(pro.status, 202, pro.text);
      comfy.paused = false;
      const proDone = await finished(a, pro.json.id, key);
      assert.equal(proDone.status, "succeeded");
      for (const free of ids) {
        const job = await finished(b, free.id, undefined, free.from);
        assert.equal(job.status, "succeeded");
        assert.ok(Date.parse(job.started_at) >= Date.parse(proDone.started_at), "the Pro job started first");
      }
    } finally {
      comfy.paused = false;
    }
  });

  it("lets no key hold every worker: another key's job starts while the first key's jobs wait", async () => {
    // Two workers of two jobs each: four places. One key's six jobs take its cap (WORKER_KEY_CAP, 2) of them.
    await replaceWorkers(2, { WORKER_CONCURRENCY: "2" });
    const hog = await createKey(a, "tier-hog");
    const other = await createKey(a, "tier-other");
    comfy.paused = true;
    try {
      const hogIds: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await generate(
          a.url,
          { prompt: `a hog's job ${i}`, model: "gamma-xl-1024-v1-0" },
          { headers: asyncHeaders(hog.key) },
        );
        assert.equal(res.status, 202, res.text);
        hogIds.push(res.json.id);
      }
      await until("the key's cap of jobs to reach the GPU server", async () => comfy.busy() >= 2);
      const second = await generate(
        b.url,
        { prompt: "another key's job", model: "gamma-xl-1024-v1-0" },
        { headers: asyncHeaders(other.key) },
      );
      assert.equal(second.status, 202, second.text);
      // The GPU server is paused: the second key's job reaches it only through a place the first key left free.
      const promptsOf = (text: string) => comfy.prompts.filter((p) => JSON.stringify(p.prompt).includes(text)).length;
      await until("the other key's prompt to reach the GPU server", async () => promptsOf("another key's job") === 1);
      await sleep(1500);
      assert.equal(promptsOf("a hog's job"), 2, "the first key runs its cap of jobs, no more");
      assert.equal(comfy.busy(), 3, "the GPU server holds the first key's two prompts and the other key's one");
      comfy.paused = false;
      for (const id of hogIds) {
        const done = await finished(a, id, hog.key);
        assert.equal(done.status, "succeeded", JSON.stringify(done));
      }
      assert.equal((await finished(b, second.json.id, other.key)).status, "succeeded");
    } finally {
      comfy.paused = false;
    }
  });

  it("holds a GPU server's concurrency of 1 across two workers", async () => {
    await replaceWorkers(2, { WORKER_CONCURRENCY: "2", GPU_SERVER_CONCURRENCY: "1" });
    const keys = [await createKey(a, "tier-gpu-1"), await createKey(a, "tier-gpu-2")];
    comfy.stepDelayMs = 100;
    comfy.mostBusy = 0;
    try {
      const accepted = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          generate(
            i % 2 ? b.url : a.url,
            { prompt: `a queued job ${i}`, model: "gamma-xl-1024-v1-0" },
            { headers: asyncHeaders(keys[i % 2].key) },
          ),
        ),
      );
      for (const res of accepted) assert.equal(res.status, 202, res.text);
      for (const [i, res] of accepted.entries()) {
        const done = await finished(a, res.json.id, keys[i % 2].key);
        assert.equal(done.status, "succeeded", JSON.stringify(done));
      }
      assert.equal(comfy.mostBusy, 1, "the server never held two prompts at once");
    } finally {
      comfy.stepDelayMs = 0;
    }
  });

  it("fails a job whose workers die past the retry limit, with its unit given back and one webhook", async () => {
    // WORK_STALL_LIMIT is 2: the job's third stall fails it.
    await replaceWorkers(1);
    const { key } = await createKey(a, "tier-lost");
    const prompt = "a job no worker survives";
    const usage = async () =>
      (await call(a.url, "/api/status", { headers: { Authorization: `Bearer ${key}` } })).json.usage_today;
    const runs = () => comfy.prompts.filter((p) => JSON.stringify(p.prompt).includes(prompt)).length;
    comfy.paused = true;
    try {
      const accepted = await generate(
        a.url,
        { prompt, model: "gamma-xl-1024-v1-0", webhook_url: receiver.url },
        { headers: { Authorization: `Bearer ${key}` } },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const id = accepted.json.id;
      assert.equal(await usage(), 1, "the unit is taken at acceptance");
      const ended = async () => ["failed", "succeeded"].includes((await jobOf(b, id, key)).status);
      // Each run that reaches the engine loses its worker (SIGKILL), until BullMQ fails the job. A worker is killed
      // only once its run has sent the prompt: one that merely took the job (and, say, waited for its owner's slot)
      // is not a run that stalls.
      let deaths = 0;
      for (;;) {
        const seen = runs();
        // Once a second: job reads have their own guard of 120 a minute per caller.
        const next = await until(
          "the job's next run at the engine, or its end",
          async () => (runs() > seen ? "run" : (await ended()) && "ended"),
          1000,
        );
        if (next === "ended") break;
        assert.ok(deaths < 3, `the job ran again after its third stall (${deaths} deaths)`);
        (await workerRunning(id)).kill();
        deaths++;
        startWorker();
      }
      assert.equal(deaths, 3, "WORK_STALL_LIMIT 2: the job ran three times");
      const done = await finished(b, id, key);
      assert.equal(done.status, "failed", JSON.stringify(done));
      assert.equal(done.error.code, "server_error");
      assert.equal(await usage(), 0, "the unit is given back");
      await until("its one webhook", async () =>
        receiver.got.some((g) => JSON.parse(g.body).data.id === id && JSON.parse(g.body).type === "job.failed"),
      );
      await sleep(2000);
      assert.equal(receiver.got.filter((g) => JSON.parse(g.body).data.id === id).length, 1, "one webhook");
    } finally {
      comfy.paused = false;
    }
  });

  it("runs four enhancements at once on one worker without a stalled job", async () => {
    await replaceWorkers(1, { WORKER_CONCURRENCY: "4" });
    const stallsBefore = Number((await redisClient.get(STALLS_KEY)) ?? 0);
    const photo = await sharp({ create: { width: 384, height: 256, channels: 3, background: "#824" } })
      .jpeg()
      .toBuffer();
    const accepted = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        enhance(
          i % 2 ? a.url : b.url,
          { image: { data: photo, type: "image/jpeg", name: "p.jpg" }, strength: "0.5", scale: "4" },
          { from: `127.0.6.${i}`, headers: { Prefer: "respond-async" } },
        ),
      ),
    );
    for (const res of accepted) assert.equal(res.status, 202, res.text);
    for (const [i, res] of accepted.entries()) {
      const done = await finished(a, res.json.id, undefined, `127.0.6.${i + 1}`);
      assert.equal(done.status, "succeeded", JSON.stringify(done));
      assert.equal(done.result.enhanced_size, "1536x1024");
    }
    assert.equal(Number((await redisClient.get(STALLS_KEY)) ?? 0), stallsBefore, "no job stalled");
  });

  it("loses no accepted job when Redis restarts mid-run, and answers 503 busy while it is away", async () => {
    await replaceWorkers(1, { WORKER_CONCURRENCY: "2" });
    const { key } = await createKey(a, "tier-redis-restart");
    comfy.paused = true;
    try {
      const ids: string[] = [];
      for (const i of [1, 2]) {
        const res = await generate(
          a.url,
          { prompt: `a job across a restart ${i}`, model: "gamma-xl-1024-v1-0" },
          { headers: asyncHeaders(key) },
        );
        assert.equal(res.status, 202, res.text);
        ids.push(res.json.id);
      }
      await until("the jobs to reach the GPU server", async () => comfy.busy() >= 2);
      await redis.stop();
      const away = await generate(b.url, { prompt: "a job while Redis is away" }, { headers: asyncHeaders(key) });
      assert.equal(away.status, 503, away.text);
      assert.equal(away.json.error.code, "busy");
      assert.ok(away.headers["retry-after"], "a Retry-After");
      await redis.start();
      comfy.paused = false;
      for (const id of ids) {
        const done = await finished(b, id, key);
        assert.equal(done.status, "succeeded", JSON.stringify(done));
      }
    } finally {
      comfy.paused = false;
    }
  });
});
