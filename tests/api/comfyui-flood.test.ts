// A hostile ComfyUI that floods the websocket before answering POST /prompt (issue 19, item 7): the built app keeps
// its memory bounded, drops that socket, and answers the request from the next route instead of crashing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { type App, appRssBytes, startApp } from "../helpers/app";
import { generate } from "../helpers/http";

const MB = 1024 * 1024;
let app: App;
let flooder: ComfyFake;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  flooder = await startComfyFake({ name: "comfy-flood" });
  app = await startApp({
    name: "comfyui-flood",
    env: {
      COMFYUI_URLS: flooder.url,
      MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,preview",
      GENERATION_TIMEOUT_MS: "8000",
    },
  });
});
after(async () => {
  await app?.stop();
  await flooder?.close();
});

describe("a ComfyUI server flooding the socket before POST /prompt answers", () => {
  it("keeps the app's memory bounded and answers from the next route", async (t) => {
    // Warm the generate path (on the preview engine) and let the server settle before the baseline.
    flooder.mode = "ok";
    const warm = await generate(app.url, { prompt: "a warm-up card", model: "gamma-xl-1024-v1-0", seed: 1 });
    assert.equal(warm.status, 200, warm.text);
    await sleep(500);
    const baseline = appRssBytes(app.dataDir);
    assert.ok(baseline > 0, "found no app process");

    // 512 KiB JSON frames, as fast as the socket takes them, for up to 5 s: the old client kept every one.
    flooder.mode = "flood";
    flooder.flood.frameBytes = 512 * 1024;
    flooder.flood.maxMs = 5_000;
    let peak = baseline;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        peak = Math.max(peak, appRssBytes(app.dataDir));
        await sleep(50);
      }
    })();
    const res = await generate(app.url, { prompt: "a lighthouse at dusk", model: "gamma-xl-1024-v1-0", seed: 2 });
    // Sample a little longer: memory a late frame would cost shows up after the answer too.
    await sleep(500);
    done = true;
    await sampler;

    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, "preview", "the chain moved on from the flooding server");
    assert.equal(res.json.ai, false);
    const grew = peak - baseline;
    t.diagnostic(
      `memory grew by ${Math.round(grew / MB)} MB; the flood sent ${Math.round(flooder.flood.bytesSent / MB)} MB in ${flooder.flood.lastedMs} ms`,
    );
    assert.ok(grew < 150 * MB, `server memory grew by ${Math.round(grew / MB)} MB during the flood`);
    assert.ok(flooder.flood.lastedMs < 2_000, `the flood went on for ${flooder.flood.lastedMs} ms: socket not dropped`);
    assert.ok(
      flooder.flood.bytesSent < 64 * MB,
      `${Math.round(flooder.flood.bytesSent / MB)} MB were sent before the socket closed`,
    );
    assert.match(app.logs(), /comfyui websocket flooded before the prompt was queued/);

    // The app is still up and serving.
    flooder.mode = "ok";
    const after = await generate(app.url, { prompt: "a calm sea", model: "gamma-xl-1024-v1-0", seed: 3 });
    assert.equal(after.status, 200, after.text);
  });
});
