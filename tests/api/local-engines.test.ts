// Local GPU engines through the public API: the built app with its COMFYUI_* and A1111_* variables pointed at
// loopback fakes of two ComfyUI servers and one AUTOMATIC1111 server.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { MODELS, type ModelName } from "@/lib/catalog/models";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { type App, createKey, startApp } from "../helpers/app";
import { BROWSER, call, generate, JSON_BROWSER } from "../helpers/http";

const PROXY_AUTH = { name: "Authorization", value: "Bearer comfy-proxy-token-0123456789" };
const SDXL = "sd_xl_base_1.0.safetensors";
const SCHNELL = "flux1-schnell-fp8.safetensors";
let app: App;
let comfyA: ComfyFake;
let comfyB: ComfyFake;
let a1111: A1111Fake;
let proKey: string;
let lastOctet = 20;
const nextIp = () => `127.0.0.${lastOctet++}`;

before(async () => {
  [comfyA, comfyB, a1111] = await Promise.all([
    startComfyFake({ name: "comfy-a", authHeader: PROXY_AUTH }),
    startComfyFake({ name: "comfy-b", authHeader: PROXY_AUTH }),
    startA1111Fake(),
  ]);
  app = await startApp({
    name: "local-engines",
    env: {
      COMFYUI_URLS: `${comfyA.url},${comfyB.url}`,
      COMFYUI_AUTH_HEADER: `${PROXY_AUTH.name}: ${PROXY_AUTH.value}`,
      A1111_URLS: a1111.url,
      A1111_AUTH,
      MODEL_GAMMA_XL_1024_V1_0: `comfyui:sdxl,a1111:${SDXL}`,
      MODEL_ALPHA_SCHNELL: `comfyui:flux-schnell,a1111:${SCHNELL}`,
      MODEL_ALPHA_PRO: "comfyui:flux-schnell",
      MODEL_BETA_3: `a1111:${SDXL}`,
      GENERATION_TIMEOUT_MS: "8000",
    },
  });
  proKey = (await createKey(app, "gpu")).key;
});
after(async () => {
  await app?.stop();
  await Promise.all([comfyA, comfyB, a1111].map((f) => f?.close()));
});

const prompts = () => comfyA.prompts.length + comfyB.prompts.length;
const txt2imgCalls = () => a1111.requests.filter((r) => r.path === "/sdapi/v1/txt2img").length;

async function generateOk(model: ModelName, engine: string, seed = 4242) {
  const res = await generate(
    app.url,
    { prompt: "a lighthouse at dusk", model, ratio: "16:9", seed },
    { from: nextIp() },
  );
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.engine, engine);
  assert.equal(res.json.ai, true);
  assert.equal(res.json.seed, seed, "the seed is honoured and echoed");
  const { width, height } = MODELS[model].sizes["16:9"];
  assert.deepEqual([res.json.width, res.json.height], [width, height]);
  const img = await call(app.url, new URL(res.json.url).pathname);
  const meta = await sharp(img.body).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["png", width, height]);
  return res;
}

describe("every model through each route kind", () => {
  const comfyRoutes: [ModelName, string][] = [
    ["gamma-xl-1024-v1-0", "comfyui:sdxl"],
    ["alpha-schnell", "comfyui:flux-schnell"],
    ["alpha-pro", "comfyui:flux-schnell"],
  ];
  for (const [model, engine] of comfyRoutes) {
    it(`${model} → ${engine}`, async () => {
      const before = prompts();
      await generateOk(model, engine);
      assert.equal(prompts(), before + 1);
      const sent = [...comfyA.prompts, ...comfyB.prompts].at(-1);
      const sampler = Object.values(sent?.prompt ?? {}).find((n) => n.class_type === "KSampler");
      assert.equal(sampler?.inputs.seed, 4242);
    });
  }

  it(`beta-3 → a1111:${SDXL}`, async () => {
    await generateOk("beta-3", `a1111:${SDXL}`);
  });

  // Each ComfyUI server fails once per request below (two in a row at most), then a success clears the count.
  it(`gamma-xl-1024-v1-0 and alpha-schnell fall through both ComfyUI servers to a1111:<checkpoint>`, async () => {
    comfyA.mode = "error";
    comfyB.mode = "error";
    try {
      const calls = txt2imgCalls();
      await generateOk("gamma-xl-1024-v1-0", `a1111:${SDXL}`, 7);
      await generateOk("alpha-schnell", `a1111:${SCHNELL}`, 8);
      assert.equal(txt2imgCalls(), calls + 2);
      const body = a1111.requests.filter((r) => r.path === "/sdapi/v1/txt2img").at(-1)?.body as Record<string, unknown>;
      assert.deepEqual(body.override_settings, { sd_model_checkpoint: SCHNELL });
    } finally {
      comfyA.mode = "ok";
      comfyB.mode = "ok";
    }
    await generateOk("gamma-xl-1024-v1-0", "comfyui:sdxl");
    await generateOk("alpha-schnell", "comfyui:flux-schnell");
  });

  it("sent the proxy header to ComfyUI and basic auth to A1111, and logged neither", () => {
    for (const f of [comfyA, comfyB]) {
      assert.ok(f.requests.length > 0);
      assert.ok(f.requests.every((r) => r.headers.authorization === PROXY_AUTH.value));
      assert.deepEqual(f.violations, []);
    }
    assert.deepEqual(a1111.violations, []);
    assert.doesNotMatch(app.logs(), /comfy-proxy-token|gpu-secret-pass/);
  });
});

describe("several images per request", () => {
  it("n=4 on A1111 is one txt2img call with batch_size 4; each image has its own record and seed", async () => {
    const calls = txt2imgCalls();
    const res = await generate(
      app.url,
      { prompt: "four lighthouses", model: "beta-3", n: 4, seed: 800 },
      { headers: { Authorization: `Bearer ${proKey}` } },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(txt2imgCalls(), calls + 1);
    const body = a1111.requests.filter((r) => r.path === "/sdapi/v1/txt2img").at(-1)?.body as Record<string, unknown>;
    assert.deepEqual([body.batch_size, body.seed], [4, 800]);
    const images = res.json.images as { id: string; url: string; seed: number }[];
    assert.deepEqual(
      images.map((i) => i.seed),
      [800, 801, 802, 803],
    );
    assert.equal(new Set(images.map((i) => i.id)).size, 4, "one library record per image");
    for (const image of images) {
      const stored = await call(app.url, new URL(image.url).pathname);
      assert.equal(stored.status, 200);
    }
  });

  it("n=4 on a pool of two ComfyUI servers is one prompt of two images on each", async () => {
    const before = [comfyA.prompts.length, comfyB.prompts.length];
    const res = await generate(
      app.url,
      { prompt: "four harbours", model: "gamma-xl-1024-v1-0", n: 4, seed: 900 },
      { headers: { Authorization: `Bearer ${proKey}` } },
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([comfyA.prompts.length - before[0], comfyB.prompts.length - before[1]], [1, 1]);
    const seeds = [comfyA, comfyB].flatMap((f) =>
      Object.values(f.prompts.at(-1)?.prompt ?? {})
        .filter((n) => n.class_type === "KSampler")
        .map((n) => n.inputs.seed as number),
    );
    assert.deepEqual(seeds.sort(), [900, 901, 902, 903]);
    assert.deepEqual(
      (res.json.images as { seed: number }[]).map((i) => i.seed),
      [900, 901, 902, 903],
    );
  });
});

describe("status", () => {
  it("lists each pool's servers and health, and no URL, to Free and Pro callers", async () => {
    const free = await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() });
    const pro = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${proKey}` } });
    for (const res of [free, pro]) {
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.json.gpu_pools.map((p: { kind: string; servers: { server: number; health: string }[] }) => [
          p.kind,
          p.servers.map((s) => [s.server, s.health]),
        ]),
        [
          [
            "comfyui",
            [
              [1, "ok"],
              [2, "ok"],
            ],
          ],
          ["a1111", [[1, "ok"]]],
        ],
      );
      assert.ok(!/127\.0\.0\.1|http:\/\//.test(res.text), "no server address in the status record");
      const gamma = res.json.models.find((m: { name: string }) => m.name === "gamma-xl-1024-v1-0");
      assert.deepEqual([gamma.engine, gamma.ai, gamma.configured], ["comfyui:sdxl", true, true]);
    }
  });
});

describe("cancel when the client goes away", () => {
  /** Sends a generation and cuts the connection once `ready` says the server has the work. */
  async function abandonWhen(ready: () => boolean) {
    const req = http.request(`${app.url}/api/generate`, {
      method: "POST",
      headers: { ...JSON_BROWSER, Connection: "close" },
      localAddress: nextIp(),
    });
    req.on("error", () => undefined);
    req.end(JSON.stringify({ prompt: "a slow lighthouse", model: "gamma-xl-1024-v1-0" }));
    await waitFor("the GPU server to have the work", ready);
    req.destroy();
  }

  it("deletes the prompt from the queue while it waits", async () => {
    for (const f of [comfyA, comfyB]) f.paused = true;
    try {
      const before = prompts();
      await abandonWhen(() => prompts() === before + 1);
      const target = [comfyA, comfyB].find((f) => f.busy() === 1) as ComfyFake;
      const id = target.prompts.at(-1)?.id;
      await waitFor("POST /api/queue", () => target.requests.some((r) => r.path === "/api/queue"));
      assert.deepEqual(target.requests.find((r) => r.path === "/api/queue")?.body, { delete: [id] });
      assert.equal(target.busy(), 0);
    } finally {
      for (const f of [comfyA, comfyB]) f.reset();
    }
  });

  it("interrupts the prompt while it runs", async () => {
    for (const f of [comfyA, comfyB]) f.stepDelayMs = 100;
    try {
      const steps = () => comfyA.stepsSent + comfyB.stepsSent;
      const before = steps();
      await abandonWhen(() => steps() > before);
      const target = comfyA.stepsSent > 0 ? comfyA : comfyB;
      await waitFor("POST /api/interrupt", () => target.requests.some((r) => r.path === "/api/interrupt"));
      assert.deepEqual(target.requests.find((r) => r.path === "/api/interrupt")?.body, {
        prompt_id: target.prompts.at(-1)?.id,
      });
      assert.ok(!target.requests.some((r) => r.path === "/api/queue"), "a running prompt is not deleted");
      await waitFor("the prompt to stop", () => target.busy() === 0);
      assert.ok(target.stepsSent < 30, "it stopped before its last step");
    } finally {
      for (const f of [comfyA, comfyB]) f.reset();
    }
  });
});

describe("pool failover through the API", () => {
  it("serves from the other server when one refuses connections, and status shows it out", async () => {
    // B looks busier, so A is tried (or probed) first; its reported queue is stale after a second.
    comfyB.externalQueue = 3;
    await new Promise((r) => setTimeout(r, 1100));
    await comfyA.close();
    const served = comfyB.prompts.length;
    for (let i = 0; i < 2; i++) await generateOk("gamma-xl-1024-v1-0", "comfyui:sdxl");
    assert.equal(comfyB.prompts.length, served + 2);
    const status = await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() });
    const [one, two] = status.json.gpu_pools[0].servers;
    assert.deepEqual([one.health, two.health], ["out", "ok"]);
    assert.ok(one.retry_in_s > 0 && one.retry_in_s <= 30);
    assert.equal(status.json.status, "ok", "one server out of two is not an outage");
  });
});

describe("configuration", () => {
  it("refuses to start with a bad operator workflow file, saying what is wrong", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-wf-")), "broken.json");
    fs.writeFileSync(file, JSON.stringify({ "1": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}" } } }));
    await assert.rejects(
      startApp({ name: "bad-workflow", env: { COMFYUI_URLS: "http://127.0.0.1:1", COMFYUI_WORKFLOW_BROKEN: file } }),
      (err: Error) =>
        /exited early \(1\)/.test(err.message) &&
        err.message.includes(`COMFYUI_WORKFLOW_BROKEN: ${file} has no image output node: add a SaveImage`),
    );
  });
});

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
