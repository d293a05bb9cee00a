// GET /api/ready against the built app on the production backends (redis-server behind the Upstash bridge, the Blob
// server): 200 only when everything can take work, else 503 with each reason, and back to 200 when it clears.
// /api/health stays a bare liveness answer throughout. (The enhance runtime's reasons: tests/unit/readiness.test.ts.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { type Fakes, startAllFakes } from "../fakes";
import { A1111_AUTH, A1111_UPSCALERS, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { type App, startApp } from "../helpers/app";
import { type Backends, startBackends } from "../helpers/backends";
import { call, enhance, generate } from "../helpers/http";

let backends: Backends;
let fakes: Fakes;
let app: App;

before(async () => {
  backends = await startBackends();
  fakes = await startAllFakes();
  app = await startApp({
    name: "ready",
    env: {
      ...backends.env,
      ...fakes.env,
      MODEL_ALPHA_PRO: "bfl:flux-pro-1.1",
      MODEL_BETA_3: "openai:gpt-image-1",
      GENERATE_CONCURRENCY: "1",
      GENERATE_QUEUE: "1",
      FREE_GENERATIONS_PER_DAY: "50",
    },
  });
});
after(async () => {
  await app?.stop();
  await fakes?.closeAll();
  await backends?.close();
});

/** Polls /api/ready until it answers `status` with exactly `reasons`. */
async function readyBecomes(status: 200 | 503, reasons: string[], ms = 60_000, on = () => app): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await call(on().url, "/api/ready");
    const want = { status: status === 200 ? "ready" : "not_ready", reasons };
    if (res.status === status && JSON.stringify(res.json) === JSON.stringify(want)) {
      assert.equal(res.headers["cache-control"], "no-store");
      return;
    }
    if (Date.now() > deadline) assert.fail(`/api/ready: ${res.status} ${res.text}, wanted ${status} ${reasons}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function healthIsBare() {
  const health = await call(app.url, "/api/health");
  assert.equal(health.status, 200);
  assert.deepEqual(health.json, { status: "ok" });
}

describe("GET /api/ready", () => {
  it("is ready once the enhance runtime has loaded", async () => {
    await readyBecomes(200, []);
    await healthIsBare();
  });

  it("is not ready while the store does not answer", async () => {
    await backends.redis.stop();
    try {
      await readyBecomes(503, ["The store does not answer."]);
      await healthIsBare();
    } finally {
      await backends.redis.start();
    }
    await readyBecomes(200, []);
  });

  it("is not ready while the image storage does not answer", async () => {
    backends.blob.failApi({ status: 503, code: "service_unavailable" });
    try {
      await readyBecomes(503, ["The image storage does not answer."]);
      await healthIsBare();
    } finally {
      backends.blob.failApi(null);
    }
    await readyBecomes(200, []);
  });

  it("is not ready while the generate queue is full", async () => {
    fakes.openai.mode = "hang";
    // One running, one waiting: the queue's bounds. The clients give up after a while, which frees both.
    const held = [1, 2].map((i) =>
      generate(
        app.url,
        { prompt: "a held request", model: "beta-3" },
        { from: `127.0.7.${i}`, timeoutMs: 8_000 },
      ).catch((err: Error) => err),
    );
    try {
      await readyBecomes(503, ["The generate queue is full (1 running, 1 waiting)."], 7_000);
      await healthIsBare();
    } finally {
      await Promise.all(held);
      fakes.openai.mode = "ok";
    }
    await readyBecomes(200, []);
  });

  it("is not ready while every route of a model is failing", async () => {
    fakes.bfl.mode = "error";
    for (let i = 0; i < 3; i++) {
      const res = await generate(app.url, { prompt: "a failing route", model: "alpha-pro" }, { from: "127.0.7.9" });
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.error.code, "generation_failed");
    }
    await readyBecomes(503, ["Every route of alpha-pro is failing or out: bfl:flux-pro-1.1."], 5_000);
    await healthIsBare();
    fakes.bfl.mode = "ok";
  });

  it("leaves /metrics off (404) while METRICS_TOKEN is unset", async () => {
    const res = await call(app.url, "/metrics", { headers: { Authorization: "Bearer anything-at-all-here" } });
    assert.equal(res.status, 404);
  });
});

describe("GET /api/ready with an enhance mode on a GPU server", () => {
  let a1111: A1111Fake;
  let gpuApp: App;
  before(async () => {
    a1111 = await startA1111Fake();
    gpuApp = await startApp({
      name: "ready-enhance",
      env: {
        ...backends.env,
        A1111_URLS: a1111.url,
        A1111_AUTH,
        ENHANCE_FACES: "a1111:4x-Nope",
        // An optional route the server lacks before the in-process network: the mode keeps a step that works.
        ENHANCE_QUALITY: "a1111:4x-Missing,onnx:esrgan-medium",
        FREE_ENHANCEMENTS_PER_DAY: "10",
      },
    });
  });
  after(async () => {
    await gpuApp?.stop();
    await a1111?.close();
  });

  it("stays ready with an ejected optional route before an onnx step, and is not once every route of a mode is ejected", async () => {
    // The name is checked on the route's first use, so until then the route counts as able to take work.
    await readyBecomes(200, [], 120_000, () => gpuApp);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#468" } })
      .png()
      .toBuffer();
    const quality = await enhance(
      gpuApp.url,
      { image: { data: photo, type: "image/png" }, model: "quality" },
      { from: "127.0.7.19", timeoutMs: 120_000 },
    );
    assert.equal(quality.status, 200, quality.text);
    assert.match(quality.json.engine, /^(onnx|sharp)/, "the ejected route handed over to the in-process network");
    await readyBecomes(200, [], 120_000, () => gpuApp);
    const res = await enhance(
      gpuApp.url,
      { image: { data: photo, type: "image/png" }, model: "faces" },
      { from: "127.0.7.20", timeoutMs: 120_000 },
    );
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json.error.code, "generation_failed");
    assert.equal(
      a1111.requests.some((r) => r.path === "/sdapi/v1/extra-single-image"),
      false,
      "the unknown name is never sent",
    );
    const lists = A1111_UPSCALERS.map((u) => u.name).join(", ");
    await readyBecomes(
      503,
      [
        `Every route of the enhance mode faces is out: a1111:4x-Nope (server 1 has no upscaler named "4x-Nope" (it lists ${lists})).`,
      ],
      120_000,
      () => gpuApp,
    );
    // The in-process modes and liveness are untouched.
    const fast = await enhance(
      gpuApp.url,
      { image: { data: photo, type: "image/png" }, model: "fast" },
      { from: "127.0.7.21", timeoutMs: 120_000 },
    );
    assert.equal(fast.status, 200, fast.text);
    const health = await call(gpuApp.url, "/api/health");
    assert.deepEqual([health.status, health.json], [200, { status: "ok" }]);
  });
});
