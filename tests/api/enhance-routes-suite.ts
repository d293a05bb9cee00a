// Enhancement on every engine (issue 29, contract 1.3): ENHANCE_<MODE> chains of cloud routes and the in-process
// networks, against the providers' loopback fakes, on each store. faces and creative are served once a route is set,
// with the route named in `engine`, `ai` and `generative` in the answer and in the library record, and the output
// exactly the target size whatever the engine made; a route that fails (a 500) hands over to the next (a route's
// deadline is tested in tests/unit/enhance-remote.test.ts); status lists each mode's routes; an async job on a remote
// route completes and sends its signed webhook once, with the synchronous body and the route named.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { type Fakes, startAllFakes } from "../fakes";
import { objectOf } from "../fakes/fake-server";
import { type App, runScript, startApp } from "../helpers/app";
import { type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, enhance } from "../helpers/http";
import { type Receiver, startReceiver } from "../helpers/webhook-receivers";

const METRICS_TOKEN = `metrics-${crypto.randomBytes(16).toString("hex")}`;
const ADMIN_TOKEN = `admin-${crypto.randomBytes(24).toString("hex")}`;

/** darkroom_route_attempts_total of a route and outcome in a /metrics scrape (0 when not yet counted). */
function attemptsIn(scrape: string, route: string, outcome: string): number {
  const line = scrape
    .split("\n")
    .find(
      (l) =>
        l.startsWith("darkroom_route_attempts_total{") &&
        l.includes(`route="${route}"`) &&
        l.includes(`outcome="${outcome}"`),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

export function runEnhanceRoutesSuite(backend: "embedded" | "redis") {
  let fakes: Fakes;
  let app: App;
  let from = 0;
  const nextAddress = () => `127.0.${backend === "redis" ? 13 : 12}.${++from}`;
  let backends: Backends | undefined;
  let key: string;
  let receiver: Receiver;

  async function proKey(): Promise<string> {
    const out = await runScript(app, "keys", ["create", "--label", `enhance-routes-${backend}`]);
    assert.equal(out.code, 0, out.stderr);
    return out.lines.at(-1) as string;
  }

  before(async () => {
    fakes = await startAllFakes();
    backends = backend === "redis" ? await startBackends("redis") : undefined;
    app = await startApp({
      name: `enhance-routes-${backend}`,
      env: {
        ...backends?.env,
        ...fakes.env,
        ENHANCE_FACES: "replicate:sczhou/codeformer,fal:fal-ai/codeformer",
        ENHANCE_CREATIVE: "fal:fal-ai/clarity-upscaler",
        ENHANCE_QUALITY: "fal:fal-ai/esrgan,onnx:esrgan-medium",
        FREE_ENHANCEMENTS_PER_DAY: "100",
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
        METRICS_TOKEN,
        ADMIN_TOKEN,
      },
    });
    key = await proKey();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await app?.stop();
    await fakes?.closeAll();
    await backends?.close();
  });
  beforeEach(() => fakes.resetAll());

  const photo = () =>
    sharp({ create: { width: 120, height: 80, channels: 3, background: "#c84" } })
      .png()
      .toBuffer();

  async function sizeAt(url: string): Promise<string> {
    const res = await call(new URL(url).origin, new URL(url).pathname);
    assert.equal(res.status, 200);
    const meta = await sharp(res.body).metadata();
    return `${meta.width}x${meta.height}`;
  }

  describe(`ENHANCE_<MODE> chains (${backend})`, () => {
    it("lists every mode with its routes in status, the face model's licence included", async () => {
      const status = await call(app.url, "/api/status", { headers: BROWSER, from: nextAddress() });
      const modes = Object.fromEntries(status.json.enhance_modes.map((m: { name: string }) => [m.name, m]));
      assert.deepEqual(modes.faces.engines, ["replicate:sczhou/codeformer", "fal:fal-ai/codeformer"]);
      assert.equal(modes.faces.available, true);
      assert.match(modes.faces.licence_notes, /S-Lab/);
      assert.deepEqual(modes.creative.engines, ["fal:fal-ai/clarity-upscaler"]);
      assert.equal(modes.creative.generative, true);
      assert.equal(modes.quality.engines[0], "fal:fal-ai/esrgan");
      assert.match(modes.quality.engines[1], /^onnx:/);
      assert.match(modes.fast.engines[0], /^onnx:/);
    });

    it("serves faces through its route with the restorer's fields, at exactly the target size", async () => {
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "4", strength: "0.7" },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.json.model, res.json.engine, res.json.ai, res.json.generative],
        ["faces", "replicate:sczhou/codeformer", true, false],
      );
      assert.equal(res.json.enhanced_size, "480x320");
      assert.equal(await sizeAt(res.json.url), "480x320");
      const sent = fakes.replicate.requests.find((r) => r.method === "POST");
      const input = objectOf(objectOf(sent?.body).input);
      assert.equal(input.upscale, 4);
      assert.equal(input.codeformer_fidelity, 0.3, "strength is the restorer's weight");
      assert.deepEqual(fakes.replicate.violations, []);
    });

    it("serves creative with its prompt, says it is generative, and refuses a filtered prompt before any call", async () => {
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "creative", prompt: "crisp autumn leaves" },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.json.engine, res.json.ai, res.json.generative],
        ["fal:fal-ai/clarity-upscaler", true, true],
      );
      assert.equal(res.json.enhanced_size, "240x160");
      const sent = fakes.fal.requests.find((r) => r.method === "POST");
      assert.equal(objectOf(sent?.body).prompt, "crisp autumn leaves");

      const calls = fakes.fal.requests.length;
      const filtered = await enhance(
        app.url,
        {
          image: { data: await photo(), type: "image/png" },
          model: "creative",
          prompt: "explicit porn of a naked woman",
        },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(filtered.status, 422, filtered.text);
      assert.equal(filtered.json.error.code, "content_filtered");
      assert.equal(fakes.fal.requests.length, calls, "nothing was sent");
    });

    it("fails over to the next route when one fails, and names the route that made the image", async () => {
      fakes.fal.mode = "error";
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "quality" },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 200, res.text);
      assert.ok(fakes.fal.requests.length > 0, "the fal route was tried first");
      assert.match(res.json.engine, /^(onnx|sharp)/);
      assert.equal(res.json.generative, false);
      assert.equal(res.json.enhanced_size, "240x160");
    });

    it("records the route that made the image in the library", async () => {
      const auth = { Authorization: `Bearer ${key}` };
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "2" },
        { headers: auth, from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 200, res.text);
      const listed = await call(app.url, "/api/images", { headers: auth, from: nextAddress(), timeoutMs: 120_000 });
      assert.equal(listed.status, 200, listed.text);
      const record = listed.json.images.find((i: { id: string }) => i.id === res.json.id);
      assert.ok(record, `the library lists ${res.json.id}`);
      assert.deepEqual([record.model, record.engine], ["faces", "replicate:sczhou/codeformer"]);
    });

    it("fails over from a cloud route's 500 to the next cloud route, which gets its own exact fields", async () => {
      fakes.replicate.mode = "error";
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "2", strength: "0.8" },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 200, res.text);
      assert.ok(
        fakes.replicate.requests.some((r) => r.method === "POST"),
        "replicate was tried first",
      );
      assert.deepEqual([res.json.engine, res.json.ai, res.json.generative], ["fal:fal-ai/codeformer", true, false]);
      assert.equal(res.json.enhanced_size, "240x160");
      assert.equal(await sizeAt(res.json.url), "240x160");
      const sent = objectOf(fakes.fal.requests.find((r) => r.method === "POST")?.body);
      assert.equal(sent.fidelity, 0.2, "strength is the restorer's weight");
      assert.equal(sent.upscale_factor, 2);
      assert.equal(sent.face_upscale, true);
      assert.match(String(sent.image_url), /^data:image\/png;base64,/);
      assert.deepEqual(fakes.fal.violations, []);
    });

    it("runs an async job with a webhook on a remote route: done, the webhook once with the body, the route named", async () => {
      const auth = { Authorization: `Bearer ${key}` };
      const WAIT = { timeoutMs: 120_000 };
      const account = await call(app.url, "/api/account", { headers: auth, from: nextAddress(), ...WAIT });
      assert.equal(account.status, 200, account.text);
      const before = receiver.got.length;
      const accepted = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "2", webhook_url: receiver.url },
        { headers: auth, from: nextAddress(), ...WAIT },
      );
      assert.equal(accepted.status, 202, accepted.text);
      assert.equal(accepted.headers.location, `/api/jobs/${accepted.json.id}`);
      const id: string = accepted.json.id;

      // Done, and its delivery recorded (the job's record says when).
      let job = await call(app.url, `/api/jobs/${id}`, { headers: auth, from: nextAddress(), ...WAIT });
      for (const stop = Date.now() + 120_000; !job.json.webhook?.delivered_at; ) {
        assert.ok(Date.now() < stop, `the job and its webhook did not finish: ${job.text}`);
        await new Promise((r) => setTimeout(r, 500));
        job = await call(app.url, `/api/jobs/${id}`, { headers: auth, from: nextAddress(), ...WAIT });
      }
      assert.equal(job.json.status, "succeeded", job.text);
      const result = job.json.result;
      assert.deepEqual(
        [result.model, result.engine, result.ai, result.generative, result.enhanced_size],
        ["faces", "replicate:sczhou/codeformer", true, false, "240x160"],
      );
      assert.equal(await sizeAt(result.url), "240x160");
      assert.ok(
        fakes.replicate.requests.some((r) => r.method === "POST"),
        "the remote route did the work",
      );

      // Once, with the job's record and the synchronous body, signed with the key's secret.
      await new Promise((r) => setTimeout(r, 1500));
      const hits = receiver.got.slice(before);
      assert.equal(hits.length, 1, "the webhook arrives once");
      const payload = JSON.parse(hits[0].body);
      assert.equal(payload.type, "job.succeeded");
      assert.equal(payload.data.id, id);
      assert.equal(payload.data.status, "succeeded");
      assert.deepEqual(payload.data.result, result);
      const h = hits[0].headers;
      const secret = Buffer.from(String(account.json.webhook_secret).replace(/^whsec_/, ""), "base64");
      const signed = crypto
        .createHmac("sha256", secret)
        .update(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${hits[0].body}`)
        .digest("base64");
      assert.equal(h["webhook-signature"], `v1,${signed}`);
      assert.deepEqual(
        [job.json.webhook.attempts, job.json.webhook.last_status],
        [1, 200],
        "delivered on the first attempt",
      );

      // The library record names the route.
      const listed = await call(app.url, "/api/images", { headers: auth, from: nextAddress(), ...WAIT });
      const record = listed.json.images.find((i: { id: string }) => i.id === result.id);
      assert.ok(record, `the library lists ${result.id}`);
      assert.deepEqual([record.model, record.engine], ["faces", "replicate:sczhou/codeformer"]);
    });

    it("answers 503 busy with Retry-After when every route of the mode is at capacity, and nothing is spent", async () => {
      fakes.fal.mode = "capacity";
      const from = nextAddress();
      const before = await call(app.url, "/api/status", { headers: BROWSER, from });
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "creative", prompt: "crisp autumn leaves" },
        { from, timeoutMs: 120_000 },
      );
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.error.code, "busy");
      assert.equal(res.headers["retry-after"], "3", "the provider's Retry-After");
      const after = await call(app.url, "/api/status", { headers: BROWSER, from });
      assert.equal(after.json.enhance.remaining, before.json.enhance.remaining, "the unit came back");
    });

    it("answers 500 generation_failed when every route fails, and shows the route by id in /metrics, status and the console", async () => {
      const metrics = { headers: { Authorization: `Bearer ${METRICS_TOKEN}` }, timeoutMs: 120_000 };
      const route = "fal:fal-ai/clarity-upscaler";
      const scraped = await call(app.url, "/metrics", metrics);
      assert.equal(scraped.status, 200, scraped.text);
      const failedBefore = attemptsIn(scraped.text, route, "failed");
      fakes.fal.mode = "error";
      // Three failures in a row make a route failing, as for generation's routes.
      for (let i = 0; i < 3; i++) {
        const res = await enhance(
          app.url,
          { image: { data: await photo(), type: "image/png" }, model: "creative", prompt: "crisp autumn leaves" },
          { from: nextAddress(), timeoutMs: 120_000 },
        );
        assert.equal(res.status, 500, res.text);
        assert.equal(res.json.error.code, "generation_failed");
        assert.match(res.json.error.message, /retry with the same or another mode/);
        assert.doesNotMatch(res.json.error.message, /Internal server error/, "no provider text");
      }
      const scrape = (await call(app.url, "/metrics", metrics)).text;
      assert.equal(attemptsIn(scrape, route, "failed"), failedBefore + 3);
      assert.ok(attemptsIn(scrape, "replicate:sczhou/codeformer", "ok") >= 1, "the faces route's answers are counted");
      assert.match(scrape, new RegExp(`darkroom_route_up\\{model="enhance:creative",route="${route}"\\} 0`));

      const status = await call(app.url, "/api/status", { headers: BROWSER, from: nextAddress() });
      assert.deepEqual(
        status.json.enhance_routes.find((r: { route: string }) => r.route === route),
        { mode: "creative", route, failing: true },
      );
      assert.equal(status.json.status, "degraded");
      assert.ok(
        status.json.degraded_reasons.some((r: string) => r.includes(`creative (${route})`)),
        status.json.degraded_reasons.join(" | "),
      );

      const overview = await call(app.url, "/api/admin/overview", {
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
        timeoutMs: 120_000,
      });
      assert.equal(overview.status, 200, overview.text);
      const row = overview.json.routes.find((r: { route: string }) => r.route === route);
      assert.deepEqual(row.models, ["enhance:creative"]);
      assert.ok(row.failures >= 3, JSON.stringify(row));
      assert.deepEqual(row.recent.slice(-3), [false, false, false]);
    });

    it("keeps 400 invalid_model for a mode with no route", async () => {
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "best" },
        { from: nextAddress(), timeoutMs: 120_000 },
      );
      assert.equal(res.status, 400);
      assert.equal(res.json.error.code, "invalid_model");
    });
  });
}
