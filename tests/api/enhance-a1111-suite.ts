// a1111:<upscaler> enhance routes through /api/enhance against the loopback AUTOMATIC1111 fake, on each store: faces
// with the restorer's fields (GFPGAN here; CodeFormer's are in tests/unit/enhance-a1111.test.ts) at exactly the
// target size, status listing the route, the upscaler checked against /sdapi/v1/upscalers with an unknown name
// ejecting its route (with a log line) so the next route serves, and failover from the server's 500 to the next route.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { objectOf } from "../fakes/fake-server";
import { type App, startApp } from "../helpers/app";
import { type Backends, startBackends } from "../helpers/backends";
import { assertServedBy, photoOf, sizeAt, WAIT } from "../helpers/gpu-enhance";
import { BROWSER, call, enhance } from "../helpers/http";

export function runEnhanceA1111Suite(backend: "embedded" | "redis") {
  let fakes: Fakes;
  let a1111: A1111Fake;
  let app: App;
  let backends: Backends | undefined;
  let from = 0;
  const nextAddress = () => `127.0.${backend === "redis" ? 15 : 14}.${++from}`;

  before(async () => {
    [fakes, a1111] = await Promise.all([startAllFakes(), startA1111Fake()]);
    backends = backend === "redis" ? await startBackends("redis") : undefined;
    app = await startApp({
      name: `enhance-a1111-${backend}`,
      env: {
        ...backends?.env,
        ...fakes.env,
        A1111_URLS: a1111.url,
        A1111_AUTH,
        ENHANCE_FACES: "a1111:4x-UltraSharp,replicate:sczhou/codeformer",
        ENHANCE_FACE_RESTORER: "gfpgan",
        ENHANCE_QUALITY: "a1111:4x-Missing,a1111:R-ESRGAN 4x+",
        FREE_ENHANCEMENTS_PER_DAY: "100",
      },
    });
  });
  after(async () => {
    await app?.stop();
    await a1111?.close();
    await fakes?.closeAll();
    await backends?.close();
  });
  beforeEach(() => {
    fakes.resetAll();
    a1111.reset();
  });

  const photo = () => photoOf("#8ac");
  const extras = () => a1111.requests.filter((r) => r.path === "/sdapi/v1/extra-single-image");

  describe(`a1111 enhance routes (${backend})`, () => {
    it("lists the a1111 routes in status", async () => {
      const status = await call(app.url, "/api/status", { headers: BROWSER, from: nextAddress(), ...WAIT });
      const modes = Object.fromEntries(status.json.enhance_modes.map((m: { name: string }) => [m.name, m]));
      assert.deepEqual(modes.faces.engines, ["a1111:4x-UltraSharp", "replicate:sczhou/codeformer"]);
      assert.equal(modes.faces.available, true);
      assert.match(modes.faces.licence_notes, /GFPGAN/, "GFPGAN's terms, from ENHANCE_FACE_RESTORER");
      assert.deepEqual(modes.quality.engines, ["a1111:4x-Missing", "a1111:R-ESRGAN 4x+"]);
    });

    for (const scale of [2, 4]) {
      it(`restores faces on the GPU server with GFPGAN's visibility at exactly ${scale}x`, async () => {
        const res = await enhance(
          app.url,
          { image: { data: await photo(), type: "image/png" }, model: "faces", scale: String(scale), strength: "0.6" },
          { from: nextAddress(), ...WAIT },
        );
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          [res.json.model, res.json.engine, res.json.ai, res.json.generative],
          ["faces", "a1111:4x-UltraSharp", true, false],
        );
        const size = `${120 * scale}x${80 * scale}`;
        assert.equal(res.json.enhanced_size, size);
        assert.equal(await sizeAt(res.json.url), size);
        const sent = objectOf(extras()[0]?.body);
        assert.deepEqual(
          [sent.upscaler_1, sent.resize_mode, sent.upscaling_resize_w, sent.upscaling_resize_h],
          ["4x-UltraSharp", 1, 120 * scale, 80 * scale],
        );
        assert.deepEqual([sent.gfpgan_visibility, sent.codeformer_visibility, sent.codeformer_weight], [0.6, 0, 0]);
        assert.equal(
          a1111.requests.find((r) => r.path === "/sdapi/v1/extra-single-image")?.headers.authorization,
          `Basic ${Buffer.from(A1111_AUTH).toString("base64")}`,
        );
        assert.deepEqual(a1111.violations, []);
      });
    }

    it("ejects a route whose upscaler the server does not have, with a log line, and the next route serves", async () => {
      await assertServedBy(
        app.url,
        await photo(),
        nextAddress,
        { model: "quality" },
        { engine: "a1111:R-ESRGAN 4x+", size: "240x160", times: 2 },
      );
      const sent = extras().map((r) => objectOf(r.body).upscaler_1);
      assert.deepEqual(sent, ["R-ESRGAN 4x+", "R-ESRGAN 4x+"], "the unknown upscaler is never sent");
      assert.match(app.logs(), /enhance route ejected[^\n]*4x-Missing/);
    });

    it("fails over from the GPU server's 500 to the next route", async () => {
      a1111.mode = "error";
      await assertServedBy(
        app.url,
        await photo(),
        nextAddress,
        { model: "faces", scale: "2", strength: "0.7" },
        {
          engine: "replicate:sczhou/codeformer",
          size: "240x160",
        },
      );
      assert.ok(extras().length > 0, "the a1111 route was tried first");
    });
  });
}
