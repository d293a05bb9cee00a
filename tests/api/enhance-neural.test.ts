// /api/enhance on the neural engine through the real app: models, the bounded queue (busy, no quota) and disconnects.
// @test-alone: the first enhance makes the int8 models (minutes of CPU), so the file runs by itself, not beside others.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { IN_PROCESS_MODES } from "@/lib/catalog/enhance-modes";
import { choosePrecision, int8WeightBits } from "@/lib/enhance/precision";
import { INVALID_ENHANCE_MODE_MESSAGE } from "@/lib/schemas/enhance";
import { type App, startApp } from "../helpers/app";
import { BROWSER, call, enhance, multipart } from "../helpers/http";
import { pngOf } from "../helpers/images";

let app: App;
before(async () => {
  // One worker and one waiting slot, so three requests are enough to fill the queue.
  app = await startApp({
    name: "enhance-neural",
    env: { ENHANCE_WORKERS: "1", ENHANCE_QUEUE: "1", FREE_ENHANCEMENTS_PER_DAY: "50" },
  });
});
after(() => app?.stop());

const jobLines = () =>
  app
    .logs()
    .split("\n")
    .filter((l) => l.includes('"msg":"enhance job"'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function usageOf(from: string): Promise<number> {
  const res = await call(app.url, "/api/status", { headers: BROWSER, from });
  return res.json.enhance.usage_today;
}

/** An enhance request whose socket the test can cut while it waits in the queue. */
async function startEnhance(fields: Parameters<typeof multipart>[0], from: string) {
  const { body, contentType } = await multipart(fields);
  const req = http.request(new URL("/api/enhance", app.url), {
    method: "POST",
    localAddress: from,
    agent: false,
    headers: { ...BROWSER, "Content-Type": contentType, "Content-Length": String(body.length) },
  });
  const settled = new Promise<string>((resolve) => {
    req.on("response", (res) => resolve(`status ${res.statusCode}`));
    req.on("error", () => resolve("socket closed"));
  });
  req.end(body);
  return { cut: () => req.destroy(), settled };
}

/** The engine label for a packaged model at this CPU's default precision ("-int8" where int8 holds quality). */
function engineOf(pkg: "esrgan-slim" | "esrgan-medium", scale: 2 | 4): string {
  return `onnx:${pkg}-x${scale}${choosePrecision(pkg, scale, int8WeightBits(), undefined) === "int8" ? "-int8" : ""}`;
}

describe("POST /api/enhance (neural engine)", () => {
  it("runs the fast model by default and the quality model on request", async () => {
    const png = await pngOf(64, 48);
    const fast = await enhance(app.url, { image: { data: png, type: "image/png" } }, { from: "127.0.8.1" });
    assert.equal(fast.status, 200, fast.text);
    assert.deepEqual(
      [fast.json.model, fast.json.engine, fast.json.enhanced_size],
      ["fast", engineOf("esrgan-slim", 2), "128x96"],
    );
    const quality = await enhance(
      app.url,
      { image: { data: png, type: "image/png" }, model: "quality", scale: "4" },
      { from: "127.0.8.1" },
    );
    assert.equal(quality.status, 200, quality.text);
    assert.deepEqual(
      [quality.json.model, quality.json.engine, quality.json.enhanced_size],
      ["quality", engineOf("esrgan-medium", 4), "256x192"],
    );
    const plain = await enhance(
      app.url,
      { image: { data: png, type: "image/png" }, strength: "0" },
      { from: "127.0.8.1" },
    );
    assert.equal(plain.json.engine, "lanczos3");
  });

  it("runs each enhance mode on its own network, as GET /api/status says", async () => {
    const png = await pngOf(32, 24);
    for (const mode of IN_PROCESS_MODES) {
      const res = await enhance(
        app.url,
        { image: { data: png, type: "image/png" }, model: mode.name },
        { from: "127.0.8.6" },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.json.model, res.json.engine], [mode.name, engineOf(mode.package, 2)]);
    }
    const status = await call(app.url, "/api/status", { headers: BROWSER, from: "127.0.8.6" });
    assert.deepEqual(
      status.json.enhance_engine.models,
      Object.fromEntries(IN_PROCESS_MODES.map((m) => [m.name, m.package])),
    );
  });

  it("rejects an unknown model with invalid_model and uses no quota", async () => {
    const from = "127.0.8.2";
    for (const model of ["best", "", "FAST"]) {
      const res = await enhance(app.url, { image: { data: await pngOf(16, 16), type: "image/png" }, model }, { from });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, "invalid_model");
      assert.equal(res.json.error.message, INVALID_ENHANCE_MODE_MESSAGE);
      assert.equal(res.json.error.param, "model");
    }
    assert.equal(await usageOf(from), 0);
  });

  it("refuses faces and creative without a route: 400 invalid_model naming the available modes, before quota", async () => {
    const from = "127.0.8.9";
    for (const model of ["faces", "creative"]) {
      const res = await enhance(app.url, { image: { data: await pngOf(16, 16), type: "image/png" }, model }, { from });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, "invalid_model");
      assert.equal(res.json.error.param, "model");
      assert.match(res.json.error.message, new RegExp(`The ${model} mode has no engine`));
      assert.match(res.json.error.message, /available are fast or quality\.$/);
    }
    assert.equal(await usageOf(from), 0);
    const status = await call(app.url, "/api/status", { headers: BROWSER, from });
    assert.deepEqual(
      status.json.enhance_modes.map((m: Record<string, unknown>) => [m.name, m.available, m.engines, m.generative]),
      [
        ["fast", true, ["onnx:esrgan-slim"], false],
        ["quality", true, ["onnx:esrgan-medium"], false],
        ["faces", false, [], false],
        ["creative", false, [], true],
      ],
    );
    assert.deepEqual(
      status.json.enhance_modes.map((m: Record<string, unknown>) => [m.label, m.ai]),
      [
        ["Fast", true],
        ["Quality", true],
        ["Faces", false],
        ["Creative", false],
      ],
    );
  });

  it("answers 503 busy with Retry-After when the queue is full, drops a disconnected queued job, and uses no quota for either", async () => {
    const before = jobLines().length;
    // A: a long job on the only worker.
    const slow = startEnhance(
      { image: { data: await pngOf(768, 768), type: "image/png" }, model: "quality" },
      "127.0.8.3",
    );
    const a = await slow;
    await sleep(1500);
    // B: waits in the only queue slot, then its client goes away.
    const b = await startEnhance({ image: { data: await pngOf(32, 32), type: "image/png" } }, "127.0.8.4");
    await sleep(400);
    // C: nowhere to wait.
    const c = await enhance(
      app.url,
      { image: { data: await pngOf(32, 32), type: "image/png" } },
      { from: "127.0.8.5" },
    );
    assert.equal(c.status, 503, c.text);
    assert.equal(c.json.error.code, "busy");
    assert.match(String(c.headers["retry-after"]), /^\d+$/);
    b.cut();
    assert.equal(await b.settled, "socket closed");
    assert.equal(await a.settled, "status 200", "the running job still completes");
    await sleep(1500);
    assert.equal(jobLines().length - before, 1, `only A ran:\n${jobLines().slice(before).join("\n")}`);
    assert.equal(await usageOf("127.0.8.4"), 0);
    assert.equal(await usageOf("127.0.8.5"), 0);
    assert.equal(await usageOf("127.0.8.3"), 1);
    // The queue is free again.
    const next = await enhance(
      app.url,
      { image: { data: await pngOf(32, 32), type: "image/png" } },
      { from: "127.0.8.5" },
    );
    assert.equal(next.status, 200, next.text);
  });
});
