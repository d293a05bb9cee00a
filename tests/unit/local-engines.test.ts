// ComfyUI and AUTOMATIC1111 routes in process against loopback fakes: every model, progress, the websocket dropping,
// execution_error, refused connections, pool failover and ejection, least-busy selection, and cancel.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import sharp from "sharp";
import { MODEL_NAMES, MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";
import { applyStyle, type StyleName } from "@/lib/catalog/styles";
import { parseConfig } from "@/lib/config";
import { buildEngine, createEngineShared } from "@/lib/engines";
import { ProviderError } from "@/lib/engines/failures";
import { describeLocalPools } from "@/lib/engines/local";
import { LocalServerError } from "@/lib/engines/local/http";
import { EJECT_MS, ServerPool } from "@/lib/engines/local/pool";
import type { GenerateJob, WorkProgress } from "@/lib/engines/types";
import { ChainExhausted, WorkAborted } from "@/lib/errors";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { freePort } from "../helpers/app";

const open: { close: () => Promise<void> }[] = [];
after(async () => {
  await Promise.all(open.map((f) => f.close()));
});

async function comfy(opts: Parameters<typeof startComfyFake>[0] = {}): Promise<ComfyFake> {
  const fake = await startComfyFake(opts);
  open.push(fake);
  return fake;
}
async function a1111(opts?: Parameters<typeof startA1111Fake>[0]): Promise<A1111Fake> {
  const fake = await startA1111Fake(opts);
  open.push(fake);
  return fake;
}

// One process's engines share their GPU pools; the tests read the pools' health through the same object.
const shared = createEngineShared();
const poolFor = shared.pools;

function engineOf(model: ModelName, env: Record<string, string>) {
  return buildEngine(model, parseConfig({ NODE_ENV: "test", GENERATION_TIMEOUT_MS: "10000", ...env }), shared);
}

function jobFor(model: ModelName, ratio: Ratio, extra: Partial<GenerateJob> = {}): GenerateJob {
  const style: StyleName = "Anime";
  const { width, height } = MODELS[model].sizes[ratio];
  return {
    prompt: "a lighthouse at dusk",
    styledPrompt: applyStyle(style, "a lighthouse at dusk"),
    model,
    style,
    ratio,
    width,
    height,
    requestId: "req_local",
    signal: new AbortController().signal,
    ...extra,
  };
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const nodeOf = (fake: ComfyFake, type: string, index = -1) =>
  Object.values(fake.prompts.at(index)?.prompt ?? {}).find((n) => n.class_type === type)?.inputs ?? {};
const paths = (fake: { requests: { method: string; path: string }[] }) =>
  fake.requests.map((r) => `${r.method} ${r.path}`);

describe("ComfyUI: every model through both shipped workflows", () => {
  const ratios: Ratio[] = ["1:1", "16:9", "9:16"];
  for (const model of MODEL_NAMES) {
    for (const [i, workflow] of ["sdxl", "flux-schnell"].entries()) {
      const ratio = ratios[(MODEL_NAMES.indexOf(model) + i) % 3];
      it(`${model} → comfyui:${workflow} at ${ratio}`, async () => {
        const fake = await comfy();
        const engine = engineOf(model, {
          COMFYUI_URLS: fake.url,
          [`MODEL_${model.toUpperCase().replace(/-/g, "_")}`]: `comfyui:${workflow}`,
        });
        const job = jobFor(model, ratio, { seed: 4242, negativePrompt: "blurry, text" });
        const image = await engine.generate(job);

        assert.equal(image.engine, `comfyui:${workflow}`);
        assert.equal(image.ai, true);
        assert.equal(image.seed, 4242, "the caller's seed is honoured and echoed");
        const meta = await sharp(image.png).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ["png", job.width, job.height]);

        const sampler = nodeOf(fake, "KSampler");
        assert.equal(sampler.seed, 4242);
        assert.equal(sampler.steps, workflow === "sdxl" ? 30 : 4);
        assert.equal(nodeOf(fake, "CLIPTextEncode").text, job.styledPrompt, "style presets become prompt text");
        const latent = { ...nodeOf(fake, "EmptyLatentImage"), ...nodeOf(fake, "EmptySD3LatentImage") };
        const rendered = workflow === "sdxl" ? MODELS["gamma-xl-1024-v1-0"].sizes[ratio] : job;
        assert.deepEqual([latent.width, latent.height], [rendered.width, rendered.height]);
        if (workflow === "sdxl") {
          const texts = Object.values(fake.prompts[0].prompt).filter((n) => n.class_type === "CLIPTextEncode");
          assert.ok(
            texts.some((n) => n.inputs.text === "blurry, text"),
            "negative prompt reaches SDXL",
          );
        }
        assert.deepEqual(paths(fake), [
          "GET /api/prompt",
          "POST /api/prompt",
          `GET /api/history/${fake.prompts[0].id}`,
          "GET /api/view",
        ]);
        assert.equal(
          fake.prompts[0].clientId,
          fake.requests[1].body && (fake.requests[1].body as { client_id: string }).client_id,
        );
        assert.deepEqual(fake.violations, []);
      });
    }
  }

  it("chooses a seed when the caller gives none, sends it and echoes it", async () => {
    const fake = await comfy();
    const image = await engineOf("alpha-schnell", { COMFYUI_URLS: fake.url }).generate(jobFor("alpha-schnell", "1:1"));
    assert.equal(image.engine, "comfyui:flux-schnell", "COMFYUI_URLS alone routes FLUX.1 schnell to ComfyUI");
    assert.ok(Number.isInteger(image.seed));
    assert.equal(nodeOf(fake, "KSampler").seed, image.seed);
  });

  it("uses the bare paths of a ComfyUI without /api/, and sends COMFYUI_AUTH_HEADER everywhere", async () => {
    const authHeader = { name: "X-Gpu-Key", value: "gpu-key-0123456789" };
    const fake = await comfy({ legacy: true, authHeader });
    const image = await engineOf("gamma-xl-1024-v1-0", {
      COMFYUI_URLS: `${fake.url}/`,
      COMFYUI_AUTH_HEADER: `${authHeader.name}: ${authHeader.value}`,
    }).generate(jobFor("gamma-xl-1024-v1-0", "16:9"));
    assert.equal(image.engine, "comfyui:sdxl");
    assert.ok(paths(fake).includes("POST /prompt") && paths(fake).includes("GET /view"));
    assert.ok(fake.requests.every((r) => r.headers["x-gpu-key"] === authHeader.value));
    assert.equal(fake.socketsOpened, 1, "the websocket passed the same header");
  });
});

describe("ComfyUI: progress, a dropped socket, errors", () => {
  it("reports queue, each sampler step and the end to onProgress, never going backwards", async () => {
    const fake = await comfy();
    fake.stepDelayMs = 5;
    const events: WorkProgress[] = [];
    await engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: fake.url }).generate(
      jobFor("gamma-xl-1024-v1-0", "1:1", { onProgress: (p) => events.push(p) }),
    );
    // The chain says which route it sent the job to, then the server's own states follow.
    assert.deepEqual(events[0], { fraction: null, stage: "sent to comfyui:sdxl" });
    assert.deepEqual(events[1], { fraction: null, stage: "queued on the GPU server" });
    const steps = events.filter((e) => e.stage.startsWith("sampling step"));
    assert.equal(steps.length, 30);
    assert.deepEqual(steps.at(-1), { fraction: 1, stage: "sampling step 30/30" });
    const fractions = events.map((e) => e.fraction).filter((f): f is number => f !== null);
    assert.deepEqual(
      fractions,
      [...fractions].sort((a, b) => a - b),
    );
    assert.equal(events.at(-1)?.fraction, 1);
  });

  it("falls back to polling /history when the websocket drops mid-job, and still delivers", async () => {
    const fake = await comfy();
    fake.mode = "drop-ws";
    fake.stepDelayMs = 40;
    const events: WorkProgress[] = [];
    const image = await engineOf("alpha-schnell", { COMFYUI_URLS: fake.url }).generate(
      jobFor("alpha-schnell", "9:16", { seed: 9, onProgress: (p) => events.push(p) }),
    );
    assert.equal(image.seed, 9);
    assert.ok(events.some((e) => e.stage.includes("live progress lost")));
    const historyPolls = paths(fake).filter((p) => p.startsWith("GET /api/history/")).length;
    assert.ok(historyPolls >= 2, `polled /history (${historyPolls} calls)`);
    assert.deepEqual(fake.violations, []);
  });

  it("turns execution_error into a failed route, and the chain moves on", async () => {
    const fake = await comfy();
    fake.mode = "error";
    await assert.rejects(
      engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: fake.url, MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl" }).generate(
        jobFor("gamma-xl-1024-v1-0", "1:1"),
      ),
      ChainExhausted,
    );
    const image = await engineOf("gamma-xl-1024-v1-0", {
      COMFYUI_URLS: fake.url,
      MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,preview",
    }).generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
    assert.equal(image.engine, "preview");
  });
});

describe("pools", () => {
  it("tries the next server when one fails with execution_error, before the next route", async () => {
    const [bad, good] = [await comfy(), await comfy()];
    bad.mode = "error";
    const image = await engineOf("gamma-xl-1024-v1-0", {
      COMFYUI_URLS: `${bad.url},${good.url}`,
      MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,preview",
    }).generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
    assert.equal(image.engine, "comfyui:sdxl");
    assert.equal(bad.prompts.length, 1);
    assert.equal(good.prompts.length, 1);
  });

  for (const [what, frameBytes, binary] of [
    ["large", 512 * 1024, false],
    ["small", 64, false],
    ["binary", 256 * 1024, true],
  ] as const) {
    it(`drops the socket of a server that floods it with ${what} frames before POST /prompt answers, and fails over`, async () => {
      const [flooder, good] = [await comfy(), await comfy()];
      flooder.mode = "flood";
      flooder.flood.frameBytes = frameBytes;
      flooder.flood.binary = binary;
      const started = Date.now();
      const image = await engineOf("gamma-xl-1024-v1-0", {
        COMFYUI_URLS: `${flooder.url},${good.url}`,
        MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,preview",
      }).generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
      assert.equal(image.engine, "comfyui:sdxl");
      assert.equal(good.prompts.length, 1, "the next server made the image");
      assert.ok(paths(flooder).includes("POST /api/prompt"), "the flooder was tried first");
      // The cap is 256 frames or 1 MiB; a few more are in flight when the socket goes.
      assert.ok(flooder.flood.framesSent < 300, `${flooder.flood.framesSent} frames sent before the socket closed`);
      assert.ok(flooder.flood.lastedMs < 2_000, `the flood lasted ${flooder.flood.lastedMs} ms`);
      assert.ok(Date.now() - started < 4_000, "no wait for the flooder's POST /prompt");
    });
  }

  it("takes a server that refuses connections out at once, for 30 s, and serves from the rest", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const live = await comfy();
    const urls = `${dead},${live.url}`;
    const engine = engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: urls });
    for (let i = 0; i < 3; i++)
      assert.equal((await engine.generate(jobFor("gamma-xl-1024-v1-0", "1:1"))).engine, "comfyui:sdxl");
    assert.equal(live.prompts.length, 3);
    const [server1, server2] = poolFor("comfyui", [dead, live.url]).describe();
    assert.equal(server1.health, "out");
    assert.ok(server1.retry_in_s !== undefined && server1.retry_in_s >= 20 && server1.retry_in_s <= 30);
    assert.equal(server2.health, "ok");
  });

  it("takes a server out after 3 failures in a row; while out it gets no work", async () => {
    const flaky = await comfy();
    flaky.mode = "http-error";
    const engine = engineOf("gamma-xl-1024-v1-0", {
      COMFYUI_URLS: flaky.url,
      MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,preview",
    });
    for (let i = 0; i < 3; i++) await engine.generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
    const posts = () => paths(flaky).filter((p) => p === "POST /api/prompt").length;
    assert.equal(posts(), 3);
    assert.equal(poolFor("comfyui", [flaky.url]).describe()[0].health, "out");
    flaky.mode = "ok";
    const image = await engine.generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
    assert.equal(image.engine, "preview", "the pool had no server, so the chain moved on");
    assert.equal(posts(), 3, "the server out of the pool was not called");
  });

  it("sends work to the server reporting the shorter queue", async () => {
    const [busy, idle] = [await comfy(), await comfy()];
    busy.externalQueue = 5;
    const engine = engineOf("alpha-schnell", { COMFYUI_URLS: `${busy.url},${idle.url}` });
    for (let i = 0; i < 2; i++) await engine.generate(jobFor("alpha-schnell", "1:1"));
    assert.deepEqual([busy.prompts.length, idle.prompts.length], [0, 2]);
  });

  it("spreads concurrent work by what is in flight on each server", async () => {
    const [one, two] = [await comfy(), await comfy()];
    for (const f of [one, two]) f.stepDelayMs = 20;
    const engine = engineOf("alpha-schnell", { COMFYUI_URLS: `${one.url},${two.url}` });
    await Promise.all([1, 2].map(() => engine.generate(jobFor("alpha-schnell", "1:1"))));
    assert.deepEqual([one.prompts.length, two.prompts.length], [1, 1]);
  });

  it("lists servers by position and health only, without their URLs", async () => {
    const fake = await comfy();
    const config = parseConfig({ NODE_ENV: "test", COMFYUI_URLS: fake.url, A1111_URLS: "http://127.0.0.1:9" });
    const text = JSON.stringify(describeLocalPools(config.generation.local, poolFor));
    assert.deepEqual(JSON.parse(text), [
      { kind: "comfyui", servers: [{ server: 1, health: "ok", in_flight: 0, queue: null }] },
      { kind: "a1111", servers: [{ server: 1, health: "ok", in_flight: 0, queue: null }] },
    ]);
    assert.doesNotMatch(text, /127\.0\.0\.1|http/);
  });
});

describe("several images in one call", () => {
  const samplersOf = (fake: ComfyFake, index = -1) =>
    Object.entries(fake.prompts.at(index)?.prompt ?? {}).filter(([, n]) => n.class_type === "KSampler");

  it("ComfyUI: one prompt makes 4 images, one sampler branch each with its own seed, sharing the rest", async () => {
    const fake = await comfy();
    const engine = engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: fake.url });
    const image = await engine.generate(jobFor("gamma-xl-1024-v1-0", "1:1", { seed: 500, count: 4 }));
    assert.equal(fake.prompts.length, 1, "one POST /prompt");
    assert.deepEqual(
      samplersOf(fake).map(([, n]) => n.inputs.seed),
      [500, 501, 502, 503],
    );
    const classes = Object.values(fake.prompts[0].prompt).map((n) => n.class_type);
    for (const shared of ["CheckpointLoaderSimple", "EmptyLatentImage"]) {
      assert.equal(classes.filter((c) => c === shared).length, 1, `${shared} is not repeated`);
    }
    assert.equal(classes.filter((c) => c === "SaveImage").length, 4);
    assert.deepEqual([image.seed, ...(image.more ?? []).map((m) => m.seed)], [500, 501, 502, 503]);
    for (const m of [image, ...(image.more ?? [])]) {
      const meta = await sharp(m.png).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, m.engine], ["png", 1024, 1024, "comfyui:sdxl"]);
    }
    assert.equal(paths(fake).filter((p) => p === "GET /api/view").length, 4);
    assert.deepEqual(fake.violations, []);
  });

  it("ComfyUI: a pool of two servers gets one prompt of 2 images each", async () => {
    const [one, two] = [await comfy(), await comfy()];
    const engine = engineOf("alpha-schnell", { COMFYUI_URLS: `${one.url},${two.url}` });
    const image = await engine.generate(jobFor("alpha-schnell", "1:1", { seed: 70, count: 4 }));
    assert.deepEqual([one.prompts.length, two.prompts.length], [1, 1]);
    const seeds = [one, two].map((f) => samplersOf(f).map(([, n]) => n.inputs.seed as number));
    assert.deepEqual(seeds.flat().sort(), [70, 71, 72, 73]);
    assert.ok(seeds.every((s) => s.length === 2));
    assert.deepEqual([image.seed, ...(image.more ?? []).map((m) => m.seed)], [70, 71, 72, 73]);
  });

  it("A1111: n=4 is one txt2img call with batch_size 4, each image with its seed from info.all_seeds", async () => {
    const fake = await a1111();
    const engine = engineOf("beta-3", {
      A1111_URLS: fake.url,
      A1111_AUTH,
      MODEL_BETA_3: "a1111:sd_xl_base_1.0.safetensors",
    });
    const image = await engine.generate(jobFor("beta-3", "16:9", { seed: 9000, count: 4 }));
    const calls = fake.requests.filter((r) => r.path === "/sdapi/v1/txt2img");
    assert.equal(calls.length, 1);
    const body = calls[0].body as Record<string, unknown>;
    assert.deepEqual([body.batch_size, body.n_iter, body.seed], [4, 1, 9000]);
    assert.deepEqual([image.seed, ...(image.more ?? []).map((m) => m.seed)], [9000, 9001, 9002, 9003]);
    assert.equal(image.more?.length, 3);
    assert.deepEqual(fake.violations, []);
  });

  it("A1111: a pool of two servers gets one call of batch_size 2 each, seeds following on", async () => {
    const [one, two] = [await a1111(), await a1111()];
    for (const f of [one, two]) f.stepDelayMs = 5;
    const engine = engineOf("beta-3", {
      A1111_URLS: `${one.url},${two.url}`,
      A1111_AUTH,
      MODEL_BETA_3: "a1111:sd_xl_base_1.0.safetensors",
    });
    const image = await engine.generate(jobFor("beta-3", "1:1", { seed: 10, count: 4 }));
    const bodies = [one, two].map(
      (f) => f.requests.filter((r) => r.path === "/sdapi/v1/txt2img").map((r) => r.body) as Record<string, unknown>[],
    );
    assert.deepEqual(bodies.map((b) => b.map((x) => [x.batch_size, x.seed])).sort(), [[[2, 10]], [[2, 12]]]);
    assert.deepEqual([image.seed, ...(image.more ?? []).map((m) => m.seed)], [10, 11, 12, 13]);
  });

  it("a route that does not batch makes one image, and says so", async () => {
    const engine = engineOf("beta-3", {});
    const job = jobFor("beta-3", "1:1", { seed: 3, count: 4 });
    assert.equal(engine.batchSize?.(job) ?? 1, 1);
    const image = await engine.generate(job);
    assert.equal(engine.id, "preview");
    assert.equal(image.more, undefined);
    const gpu = engineOf("beta-3", {
      A1111_URLS: "http://127.0.0.1:9",
      MODEL_BETA_3: "a1111:sd_xl_base_1.0.safetensors",
    });
    assert.equal(gpu.batchSize?.(job), 4);
  });
});

describe("pool rules (a clock of our own)", () => {
  const setUp = () => {
    let now = 1_000_000;
    const pool = new ServerPool("comfyui", ["http://gpu-a", "http://gpu-b"], () => now);
    const ctx = { requestId: "req_pool", signal: new AbortController().signal, cancelled: () => false };
    const fail = () => Promise.reject(new LocalServerError("http", "HTTP 500", { status: 500 }));
    return { pool, ctx, fail, advance: (ms: number) => (now += ms) };
  };

  it("spreads a request's images over the servers in service, in parts differing by at most one", async () => {
    const pool = new ServerPool("a1111", ["http://gpu-a", "http://gpu-b", "http://gpu-c"]);
    const ctx = { requestId: "req_spread", signal: new AbortController().signal, cancelled: () => false };
    const parts: [number, number, number][] = [];
    const attempt = async (server: { index: number }, offset: number, size: number) => {
      parts.push([server.index, offset, size]);
      await new Promise((r) => setTimeout(r, 5));
      return Array.from({ length: size }, (_, i) => offset + i);
    };
    assert.deepEqual(await pool.runSpread(ctx, 4, attempt), [0, 1, 2, 3]);
    assert.deepEqual(
      parts.sort((a, b) => a[1] - b[1]),
      [
        [1, 0, 2],
        [2, 2, 1],
        [3, 3, 1],
      ],
      "4 images on 3 servers: 2, 1 and 1, each part on its own server",
    );
    parts.length = 0;
    pool.servers[2].outUntil = Date.now() + EJECT_MS;
    assert.deepEqual(await pool.runSpread(ctx, 4, attempt), [0, 1, 2, 3]);
    assert.deepEqual(parts.map((p) => p[2]).sort(), [2, 2], "a server out of the pool gets no part");
    parts.length = 0;
    assert.deepEqual(await pool.runSpread(ctx, 1, attempt), [0]);
    assert.equal(parts.length, 1);
  });

  it("keeps the images of the parts that succeeded when another part fails everywhere", async () => {
    const pool = new ServerPool("a1111", ["http://gpu-a", "http://gpu-b"]);
    const ctx = { requestId: "req_spread", signal: new AbortController().signal, cancelled: () => false };
    const made = await pool.runSpread(ctx, 4, async (_server, offset, size) => {
      if (offset === 0) throw new LocalServerError("http", "HTTP 500", { status: 500 });
      return Array.from({ length: size }, (_, i) => offset + i);
    });
    assert.deepEqual(made, [2, 3]);
    await assert.rejects(
      pool.runSpread(ctx, 2, () => Promise.reject(new LocalServerError("http", "HTTP 500", { status: 500 }))),
      LocalServerError,
    );
  });

  it("after 30 s out, a server is tried again; one more failure takes it out again, a success brings it back", async () => {
    const { pool, ctx, fail, advance } = setUp();
    const a = pool.servers[0];
    for (let i = 0; i < 3; i++) pool.recordFailure(a, new LocalServerError("http", "HTTP 500"));
    assert.equal(pool.describe()[0].health, "out");
    const seen: string[] = [];
    await pool.run(ctx, async (s) => void seen.push(s.url));
    assert.deepEqual(seen, ["http://gpu-b"], "while out, only the other server is used");

    advance(EJECT_MS);
    assert.equal(pool.describe()[0].health, "failing", "back in after 30 s, still on probation");
    await pool.run(ctx, (s) => (s === a ? fail() : Promise.resolve(seen.push(s.url))));
    assert.equal(pool.describe()[0].health, "out", "one more failure takes it out again");

    advance(EJECT_MS);
    await pool.run(ctx, async (s) => void seen.push(s.url));
    assert.equal(seen.at(-1), "http://gpu-a", "tried first again (least recently picked)");
    assert.equal(pool.describe()[0].health, "ok");
  });

  it("answers capacity with Retry-After when every server is out", async () => {
    const { pool, ctx, advance } = setUp();
    for (const s of pool.servers) pool.recordFailure(s, new LocalServerError("network", "refused", { refused: true }));
    advance(10_000);
    await assert.rejects(
      pool.run(ctx, async () => "never"),
      (err: unknown) => err instanceof ProviderError && err.kind === "capacity" && err.retryAfter === 20,
    );
  });

  it("blames each server that fails and moves to the next, but never for a client that went away", async () => {
    const { pool, ctx, fail } = setUp();
    await assert.rejects(pool.run(ctx, fail), LocalServerError);
    assert.deepEqual(
      pool.describe().map((s) => s.health),
      ["failing", "failing"],
      "both servers were tried",
    );
    const calm = setUp();
    await assert.rejects(calm.pool.run({ ...calm.ctx, cancelled: () => true }, calm.fail), LocalServerError);
    assert.deepEqual(
      calm.pool.describe().map((s) => s.health),
      ["ok", "ok"],
      "a cancelled job stops at the first server and blames nobody",
    );
  });

  it("picks by max(in flight, reported queue), then fewer in flight, then least recently used", async () => {
    const { pool, ctx } = setUp();
    const [a, b] = pool.servers;
    pool.recordQueue(a, 3);
    a.inFlight = 1;
    b.inFlight = 2;
    const picked: string[] = [];
    await pool.run(ctx, async (s) => void picked.push(s.url));
    assert.deepEqual(picked, ["http://gpu-b"], "b is busy with 2 of ours, a with 3 by its own account");
  });
});

describe("ComfyUI: cancel", () => {
  it("deletes a waiting prompt from the queue when the job is cancelled", async () => {
    const fake = await comfy();
    fake.paused = true;
    const controller = new AbortController();
    const work = engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: fake.url }).generate(
      jobFor("gamma-xl-1024-v1-0", "1:1", { signal: controller.signal }),
    );
    await waitFor("the prompt to be queued", () => fake.prompts.length === 1);
    controller.abort();
    await assert.rejects(work, WorkAborted);
    await waitFor("POST /queue", () => paths(fake).includes("POST /api/queue"));
    const del = fake.requests.find((r) => r.method === "POST" && r.path === "/api/queue");
    assert.deepEqual(del?.body, { delete: [fake.prompts[0].id] });
    assert.equal(fake.busy(), 0, "nothing left in the queue");
    assert.ok(!paths(fake).includes("POST /api/interrupt"), "a waiting prompt is not interrupted");
    fake.reset();
  });

  it("interrupts a running prompt when the job is cancelled", async () => {
    const fake = await comfy();
    fake.stepDelayMs = 30;
    const controller = new AbortController();
    const events: WorkProgress[] = [];
    const work = engineOf("gamma-xl-1024-v1-0", { COMFYUI_URLS: fake.url }).generate(
      jobFor("gamma-xl-1024-v1-0", "1:1", { signal: controller.signal, onProgress: (p) => events.push(p) }),
    );
    await waitFor("a sampler step", () => events.some((e) => e.stage.startsWith("sampling step")));
    controller.abort();
    await assert.rejects(work, WorkAborted);
    await waitFor("POST /interrupt", () => paths(fake).includes("POST /api/interrupt"));
    const interrupt = fake.requests.find((r) => r.path === "/api/interrupt");
    assert.deepEqual(interrupt?.body, { prompt_id: fake.prompts[0].id }, "only our prompt is interrupted");
    assert.ok(!paths(fake).includes("POST /api/queue"));
    await waitFor("the worker to stop", () => fake.busy() === 0);
  });

  it("interrupts a running prompt at the route's deadline, and blames the server", async () => {
    const fake = await comfy();
    fake.stepDelayMs = 200;
    const engine = buildEngine(
      "gamma-xl-1024-v1-0",
      parseConfig({ NODE_ENV: "test", COMFYUI_URLS: fake.url, GENERATION_TIMEOUT_MS: "600" }),
      shared,
    );
    await assert.rejects(engine.generate(jobFor("gamma-xl-1024-v1-0", "1:1")), ChainExhausted);
    await waitFor("POST /interrupt", () => paths(fake).includes("POST /api/interrupt"));
    assert.equal(poolFor("comfyui", [fake.url]).describe()[0].health, "failing");
  });
});

describe("AUTOMATIC1111 API", () => {
  for (const model of MODEL_NAMES) {
    const checkpoint =
      model === "alpha-schnell" || model === "alpha-pro"
        ? "flux1-schnell-fp8.safetensors"
        : "sd_xl_base_1.0.safetensors";
    it(`${model} → a1111:${checkpoint}`, async () => {
      const fake = await a1111();
      const variable = `MODEL_${model.toUpperCase().replace(/-/g, "_")}`;
      const engine = engineOf(model, { A1111_URLS: fake.url, A1111_AUTH, [variable]: `a1111:${checkpoint}` });
      const job = jobFor(model, "16:9", { seed: 31337, negativePrompt: "lowres" });
      const image = await engine.generate(job);
      assert.equal(image.engine, `a1111:${checkpoint}`);
      assert.equal(image.ai, true);
      assert.equal(image.seed, 31337);
      const meta = await sharp(image.png).metadata();
      assert.deepEqual([meta.width, meta.height], [job.width, job.height]);

      const body = fake.requests.find((r) => r.path === "/sdapi/v1/txt2img")?.body as Record<string, unknown>;
      const schnell = model === "alpha-schnell";
      const sdxl = model === "gamma-xl-1024-v1-0" || model === "beta-3";
      assert.equal(body.prompt, job.styledPrompt);
      assert.equal(body.negative_prompt, "lowres");
      assert.deepEqual([body.width, body.height, body.seed], [job.width, job.height, 31337]);
      if (schnell)
        assert.deepEqual([body.steps, body.cfg_scale, body.sampler_name, body.scheduler], [4, 1, "Euler", "Simple"]);
      if (sdxl)
        assert.deepEqual(
          [body.steps, body.cfg_scale, body.sampler_name, body.scheduler],
          [30, 7, "DPM++ 2M", "Karras"],
        );
      assert.deepEqual(body.override_settings, { sd_model_checkpoint: checkpoint });
      assert.equal(fake.requests[0].headers.authorization, `Basic ${Buffer.from(A1111_AUTH).toString("base64")}`);
      assert.deepEqual(fake.violations, []);
    });
  }

  it("reports progress from /sdapi/v1/progress while txt2img runs", async () => {
    const fake = await a1111();
    fake.stepDelayMs = 100;
    const events: WorkProgress[] = [];
    await engineOf("gamma-xl-1024-v1-0", {
      A1111_URLS: fake.url,
      A1111_AUTH,
      MODEL_GAMMA_XL_1024_V1_0: "a1111:sd_xl_base_1.0.safetensors",
    }).generate(jobFor("gamma-xl-1024-v1-0", "1:1", { onProgress: (p) => events.push(p) }));
    const steps = events.filter((e) => /^sampling step \d+\/30$/.test(e.stage));
    assert.ok(steps.length >= 3, `saw ${steps.length} progress polls`);
    assert.ok(steps.every((e) => e.fraction !== null && e.fraction > 0 && e.fraction <= 1));
    assert.deepEqual(events.at(-1), { fraction: 1, stage: "received the image" });
    assert.ok(fake.requests.some((r) => r.path === "/sdapi/v1/progress"));
  });

  it("interrupts the running generation when the job is cancelled", async () => {
    const fake = await a1111();
    fake.stepDelayMs = 100;
    const controller = new AbortController();
    const work = engineOf("gamma-xl-1024-v1-0", {
      A1111_URLS: fake.url,
      A1111_AUTH,
      MODEL_GAMMA_XL_1024_V1_0: "a1111:sd_xl_base_1.0.safetensors",
    }).generate(jobFor("gamma-xl-1024-v1-0", "1:1", { signal: controller.signal }));
    await waitFor("txt2img to start", () => fake.requests.some((r) => r.path === "/sdapi/v1/txt2img"));
    controller.abort();
    await assert.rejects(work, WorkAborted);
    await waitFor("POST /sdapi/v1/interrupt", () => fake.interrupts === 1);
  });

  it("fails over past a server that errors or refuses our credentials", async () => {
    const [broken, locked, good] = [await a1111(), await a1111({ auth: "other:credentials" }), await a1111()];
    broken.mode = "error";
    const image = await engineOf("gamma-xl-1024-v1-0", {
      A1111_URLS: `${broken.url},${locked.url},${good.url}`,
      A1111_AUTH,
      MODEL_GAMMA_XL_1024_V1_0: "a1111:sd_xl_base_1.0.safetensors",
    }).generate(jobFor("gamma-xl-1024-v1-0", "1:1"));
    assert.equal(image.engine, "a1111:sd_xl_base_1.0.safetensors");
    assert.deepEqual(
      [broken, locked, good].map((f) => f.requests.filter((r) => r.path === "/sdapi/v1/txt2img").length),
      [1, 1, 1],
    );
  });
});
