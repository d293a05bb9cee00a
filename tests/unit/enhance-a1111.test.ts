// The a1111:<upscaler> enhance route against the loopback AUTOMATIC1111 fake: the exact ExtrasSingleImageRequest
// fields per mode, the upscaler (and face restorer) checked against the server's lists once, an unknown name
// ejecting the route with a log line, failover between the pool's servers on a 500, the deadline, and the interrupt
// on cancel.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { ProviderError } from "@/lib/engines/failures";
import { ServerPool } from "@/lib/engines/local/pool";
import { createA1111EnhanceRoute, extrasBody } from "@/lib/enhance/local/a1111";
import type { EnhanceRouteJob } from "@/lib/enhance/routes/types";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { imageFromBase64, imageOf, objectOf } from "../fakes/fake-server";
import { enhanceRouteJob } from "../helpers/enhance-route-job";

const WIDTH = 48;
const HEIGHT = 32;
let one: A1111Fake;
let two: A1111Fake;
let input: Buffer;

before(async () => {
  [one, two] = await Promise.all([startA1111Fake(), startA1111Fake()]);
  input = await imageOf(WIDTH, HEIGHT);
});
after(async () => {
  await one?.close();
  await two?.close();
});
beforeEach(() => {
  one.reset();
  two.reset();
});

function jobOf(overrides: Partial<EnhanceRouteJob> = {}) {
  return enhanceRouteJob({ image: input, width: WIDTH, height: HEIGHT, requestId: "req-a1111" }, overrides);
}

function routeOf(upscaler: string, urls: string[], timeoutMs = 120_000) {
  return createA1111EnhanceRoute(upscaler, {
    settings: { urls, auth: A1111_AUTH },
    pool: new ServerPool("a1111", urls),
    timeoutMs,
  });
}

const extrasOf = (fake: A1111Fake) => fake.requests.filter((r) => r.path === "/sdapi/v1/extra-single-image");

describe("a1111:<upscaler> enhance route", () => {
  it("sends the upscaler and the exact target, answers the image, and checks the name once", async () => {
    const route = routeOf("R-ESRGAN 4x+", [one.url]);
    assert.deepEqual([route.id, route.ai, route.generative], ["a1111:R-ESRGAN 4x+", true, false]);
    for (const scale of [2, 4] as const) {
      const { image } = await route.run(jobOf({ scale }));
      const meta = await sharp(image).metadata();
      assert.deepEqual([meta.width, meta.height], [WIDTH * scale, HEIGHT * scale]);
    }
    const sent = objectOf(extrasOf(one)[0].body);
    assert.deepEqual(await imageFromBase64(sent.image), { width: WIDTH, height: HEIGHT, channels: 3 });
    assert.deepEqual(
      [sent.upscaler_1, sent.resize_mode, sent.upscaling_resize_w, sent.upscaling_resize_h, sent.upscaling_crop],
      ["R-ESRGAN 4x+", 1, WIDTH * 2, HEIGHT * 2, true],
    );
    assert.deepEqual([sent.gfpgan_visibility, sent.codeformer_visibility, sent.upscaler_2], [0, 0, "None"]);
    assert.equal(one.requests.filter((r) => r.path === "/sdapi/v1/upscalers").length, 1, "the list is read once");
    assert.equal(one.requests.filter((r) => r.path === "/sdapi/v1/face-restorers").length, 0);
    assert.deepEqual(one.violations, []);
  });

  it("sends the restorer's fields in faces: GFPGAN's visibility, or CodeFormer's visibility and weight", async () => {
    const route = routeOf("4x-UltraSharp", [one.url]);
    await route.run(jobOf({ mode: "faces", strength: 0.7 }));
    await route.run(jobOf({ mode: "faces", strength: 0.7, faceRestorer: "codeformer" }));
    const [gfpgan, codeformer] = extrasOf(one).map((r) => objectOf(r.body));
    assert.deepEqual([gfpgan.gfpgan_visibility, gfpgan.codeformer_visibility, gfpgan.codeformer_weight], [0.7, 0, 0]);
    assert.deepEqual(
      [codeformer.gfpgan_visibility, codeformer.codeformer_visibility, codeformer.codeformer_weight],
      [0, 1, 0.3],
    );
    assert.equal(one.requests.filter((r) => r.path === "/sdapi/v1/face-restorers").length, 1);
    assert.deepEqual(one.violations, []);
    // The body builder keeps restorers out of the other modes whatever the strength.
    assert.equal(extrasBody("x", jobOf({ mode: "quality", strength: 0.9 })).gfpgan_visibility, 0);
  });

  it("ejects the route, with a clear failure, when the server has no upscaler of that name", async () => {
    const route = routeOf("4x-Missing", [one.url]);
    await assert.rejects(
      route.run(jobOf()),
      (err) => err instanceof ProviderError && /no upscaler named "4x-Missing"/.test(err.message),
    );
    await assert.rejects(route.run(jobOf()), (err) => err instanceof ProviderError && /ejected/.test(err.message));
    assert.equal(extrasOf(one).length, 0, "no extras call was made");
    assert.equal(one.requests.filter((r) => r.path === "/sdapi/v1/upscalers").length, 1);
  });

  it("fails over to the pool's next server on a 500", async () => {
    one.mode = "error";
    const route = routeOf("R-ESRGAN 4x+", [one.url, two.url]);
    const { image } = await route.run(jobOf());
    assert.ok((await sharp(image).metadata()).width === WIDTH * 2);
    assert.equal(extrasOf(one).length + extrasOf(two).length, 2, "one attempt on each server");
    assert.equal(extrasOf(two).length, 1);
  });

  it("fails as a timeout past its deadline, and interrupts the server", async () => {
    one.mode = "hang";
    const route = routeOf("R-ESRGAN 4x+", [one.url], 1_000);
    await assert.rejects(route.run(jobOf()), (err) => err instanceof ProviderError && err.kind === "timeout");
    for (let i = 0; i < 200 && one.interrupts === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(one.interrupts, 1);
  });

  it("passes the caller's cancel on to the server as an interrupt", async () => {
    one.mode = "hang";
    const route = routeOf("R-ESRGAN 4x+", [one.url]);
    const ctl = new AbortController();
    const running = route.run(jobOf({ signal: ctl.signal }));
    for (let i = 0; i < 200 && extrasOf(one).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    ctl.abort();
    await assert.rejects(running);
    for (let i = 0; i < 200 && one.interrupts === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(one.interrupts, 1);
  });
});
