// The cloud enhance routes (Stability's v2beta upscalers, Replicate predictions, fal's queue) against their
// loopback fakes, through the providers' guarded fetch: the exact fields each sends per mode, polling, cancel,
// failures mapped as generation maps them, and an output that decodes at the engine's own factor.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { createProviderFetch } from "@/lib/engines/providers";
import { createFalEnhanceRoute } from "@/lib/enhance/remote/fal";
import { createReplicateEnhanceRoute } from "@/lib/enhance/remote/replicate";
import type { RemoteRouteDeps } from "@/lib/enhance/remote/shared";
import { createStabilityEnhanceRoute } from "@/lib/enhance/remote/stability";
import type { EnhanceRoute, EnhanceRouteJob } from "@/lib/enhance/routes/types";
import { type Fakes, startAllFakes } from "../fakes";
import { type Fake, imageFromBase64, imageOf, multipartOf, objectOf, type Recorded } from "../fakes/fake-server";
import { FAL_KEY } from "../fakes/fal";
import { REPLICATE_TOKEN } from "../fakes/replicate";
import { STABILITY_KEY } from "../fakes/stability";
import { enhanceRouteJob } from "../helpers/enhance-route-job";

let fakes: Fakes;
let input: Buffer;
const WIDTH = 48;
const HEIGHT = 32;
const TIMEOUT_MS = 3000;

before(async () => {
  fakes = await startAllFakes();
  input = await imageOf(WIDTH, HEIGHT);
});
after(() => fakes.closeAll());
beforeEach(() => fakes.resetAll());

type Kind = "stability" | "replicate" | "fal";

function depsFor(kind: Kind, fake: Fake, overrides: Partial<RemoteRouteDeps> = {}): RemoteRouteDeps {
  const baseUrl = kind === "replicate" ? `${fake.url}/v1` : fake.url;
  const apiKey = { stability: STABILITY_KEY, replicate: REPLICATE_TOKEN, fal: FAL_KEY }[kind];
  return {
    apiKey,
    baseUrl,
    fetch: createProviderFetch(kind, { baseUrl }),
    timeoutMs: TIMEOUT_MS,
    pollIntervalMs: 20,
    ...overrides,
  };
}

function jobOf(overrides: Partial<EnhanceRouteJob> = {}) {
  return enhanceRouteJob({ image: input, width: WIDTH, height: HEIGHT, requestId: "req_enhance_remote" }, overrides);
}

async function sizeOf(image: Buffer): Promise<{ width?: number; height?: number }> {
  const { width, height } = await sharp(image).metadata();
  return { width, height };
}

function posts(fake: Fake): Recorded[] {
  return fake.requests.filter((r) => r.method === "POST");
}

function fieldsOf(req: Recorded | undefined): Record<string, string> {
  const form = multipartOf(req?.body);
  assert.ok(form, "expected a multipart body");
  return Object.fromEntries(Object.entries(form.fields).map(([k, v]) => [k, v.join(",")]));
}

/** The input a JSON request carried, with its data URI replaced by the image's decoded size. */
async function jsonInput(body: unknown, imageKey: string): Promise<Record<string, unknown>> {
  const fields = { ...objectOf(body) };
  const decoded = await imageFromBase64(fields[imageKey]);
  assert.match(String(fields[imageKey]), /^data:image\/png;base64,/);
  fields[imageKey] = decoded && `${decoded.width}x${decoded.height}`;
  return fields;
}

async function rejectsWith(route: EnhanceRoute, job: EnhanceRouteJob, check: (err: unknown) => boolean) {
  await assert.rejects(route.run(job), (err) => {
    assert.ok(check(err), `unexpected failure: ${String(err)}`);
    return true;
  });
}

const isProvider = (kind: string) => (err: unknown) => err instanceof ProviderError && err.kind === kind;

describe("stability:fast|conservative|creative", () => {
  it("fast sends the image and png only, asks for image bytes, and answers at its own 4×", async () => {
    const route = createStabilityEnhanceRoute("fast", depsFor("stability", fakes.stability));
    assert.deepEqual([route.id, route.ai, route.generative], ["stability:fast", true, false]);
    const { image } = await route.run(jobOf({ scale: 2 }));
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 4, height: HEIGHT * 4 });
    const [req] = posts(fakes.stability);
    assert.equal(req?.path, "/v2beta/stable-image/upscale/fast");
    assert.equal(req?.headers.accept, "image/*");
    assert.equal(req?.headers.authorization, `Bearer ${STABILITY_KEY}`);
    assert.deepEqual(fieldsOf(req), { output_format: "png" });
    const file = multipartOf(req?.body)?.files.image?.[0];
    assert.deepEqual(await sizeOf(file?.bytes ?? Buffer.alloc(0)), { width: WIDTH, height: HEIGHT });
    assert.deepEqual(fakes.stability.violations, []);
  });

  it("conservative carries the caller's prompt, or a fidelity prompt when there is none", async () => {
    const route = createStabilityEnhanceRoute("conservative", depsFor("stability", fakes.stability));
    assert.equal(route.generative, false);
    await route.run(jobOf({ mode: "quality", prompt: "a red brick wall" }));
    await route.run(jobOf({ mode: "quality" }));
    const [withPrompt, without] = posts(fakes.stability);
    assert.deepEqual(fieldsOf(withPrompt), { output_format: "png", prompt: "a red brick wall" });
    assert.equal(fieldsOf(without).prompt, "a sharp, detailed, high resolution version of this image");
    assert.deepEqual(fakes.stability.violations, []);
  });

  it("creative carries the prompt and a creativity from strength, and polls its result a bounded number of times", async () => {
    fakes.stability.pendingPolls = 2;
    const route = createStabilityEnhanceRoute("creative", depsFor("stability", fakes.stability));
    assert.equal(route.generative, true);
    const job = jobOf({ mode: "creative", strength: 0.5, prompt: "a fox in snow", scale: 4 });
    const { image } = await route.run(job);
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 4, height: HEIGHT * 4 });
    const [submit] = posts(fakes.stability);
    assert.equal(submit?.headers.accept, "application/json");
    assert.deepEqual(fieldsOf(submit), { output_format: "png", prompt: "a fox in snow", creativity: "0.3" });
    const polls = fakes.stability.requests.filter((r) => r.method === "GET");
    assert.equal(polls.length, 3);
    assert.match(polls[0]?.path ?? "", /^\/v2beta\/results\/[0-9a-f]{64}$/);
    assert.ok(job.progress.some((p) => p.stage === "stability:creative: in progress"));
    assert.deepEqual(fakes.stability.violations, []);
  });

  it("a creative result still in progress at the deadline is a timeout, after a bounded number of polls", async () => {
    fakes.stability.pendingPolls = 1_000;
    const route = createStabilityEnhanceRoute(
      "creative",
      depsFor("stability", fakes.stability, { timeoutMs: 400, pollIntervalMs: 50 }),
    );
    await rejectsWith(route, jobOf({ mode: "creative", prompt: "x" }), isProvider("timeout"));
    assert.ok(fakes.stability.polls <= 9, `${fakes.stability.polls} polls in 400 ms at 50 ms`);
  });

  it("maps 500 to a route failure, 429 to capacity, a refusal to moderation and a filtered image to moderation", async () => {
    const route = createStabilityEnhanceRoute("fast", depsFor("stability", fakes.stability));
    fakes.stability.mode = "error";
    await rejectsWith(route, jobOf(), (err) => isProvider("http")(err) && (err as ProviderError).status === 500);
    fakes.stability.mode = "capacity";
    await rejectsWith(route, jobOf(), isProvider("capacity"));
    fakes.stability.mode = "moderate";
    await rejectsWith(route, jobOf(), (err) => err instanceof ModerationError);
    fakes.stability.mode = "ok";
    fakes.stability.variant = "filtered";
    await rejectsWith(route, jobOf(), (err) => err instanceof ModerationError);
  });

  it("a provider that hangs past the route's deadline is a timeout, and the job's own abort propagates as it is", async () => {
    fakes.stability.mode = "hang";
    const route = createStabilityEnhanceRoute("fast", depsFor("stability", fakes.stability, { timeoutMs: 300 }));
    const started = Date.now();
    await rejectsWith(route, jobOf(), isProvider("timeout"));
    assert.ok(Date.now() - started < 2000);
    const controller = new AbortController();
    const running = route.run(jobOf({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("client went away")), 50);
    await assert.rejects(running, /client went away/);
  });
});

describe("replicate:<owner>/<model>[:<version>]", () => {
  it("real-esrgan: pinned version, image as a data URI, scale and face_enhance; Prefer wait and Cancel-After", async () => {
    const route = createReplicateEnhanceRoute("nightmareai/real-esrgan", depsFor("replicate", fakes.replicate));
    assert.deepEqual([route.id, route.ai, route.generative], ["replicate:nightmareai/real-esrgan", true, false]);
    const { image } = await route.run(jobOf({ scale: 2 }));
    // The model's own 4×, though 2× was asked: the caller resizes to the target.
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 4, height: HEIGHT * 4 });
    const [req] = posts(fakes.replicate);
    assert.equal(req?.path, "/v1/predictions");
    assert.equal(req?.headers.prefer, "wait=3");
    assert.equal(req?.headers["cancel-after"], "3s");
    const body = objectOf(req?.body);
    assert.equal(body.version, "f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa");
    assert.deepEqual(await jsonInput(body.input, "image"), {
      image: `${WIDTH}x${HEIGHT}`,
      scale: 2,
      face_enhance: false,
    });
    assert.deepEqual(fakes.replicate.violations, []);
  });

  it("faces turns on real-esrgan's face_enhance; codeformer and gfpgan get their own fields", async () => {
    const deps = depsFor("replicate", fakes.replicate);
    await createReplicateEnhanceRoute("nightmareai/real-esrgan", deps).run(jobOf({ mode: "faces", scale: 4 }));
    await createReplicateEnhanceRoute("sczhou/codeformer", deps).run(jobOf({ mode: "faces", strength: 0.7, scale: 2 }));
    const { image } = await createReplicateEnhanceRoute("tencentarc/gfpgan", deps).run(
      jobOf({ mode: "faces", scale: 2 }),
    );
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 2, height: HEIGHT * 2 });
    const [esrgan, codeformer, gfpgan] = posts(fakes.replicate).map((r) => objectOf(r.body));
    assert.deepEqual(await jsonInput(esrgan?.input, "image"), {
      image: `${WIDTH}x${HEIGHT}`,
      scale: 4,
      face_enhance: true,
    });
    assert.equal(codeformer?.version, "cc4956dd26fa5a7185d5660cc9100fab1b8070a1d1654a8bb5eb6d443b020bb2");
    assert.deepEqual(await jsonInput(codeformer?.input, "image"), {
      image: `${WIDTH}x${HEIGHT}`,
      upscale: 2,
      codeformer_fidelity: 0.3,
      face_upsample: true,
      background_enhance: true,
    });
    assert.equal(gfpgan?.version, "0fbacf7afc6c144e5be9767cff80f25aff23e52b0708f17e20f9879b2f21516c");
    assert.deepEqual(await jsonInput(gfpgan?.input, "img"), { img: `${WIDTH}x${HEIGHT}`, scale: 2, version: "v1.4" });
    assert.deepEqual(fakes.replicate.violations, []);
  });

  it("an explicit version is sent as it is", async () => {
    const version = "0fbacf7afc6c144e5be9767cff80f25aff23e52b0708f17e20f9879b2f21516c";
    await createReplicateEnhanceRoute(`tencentarc/gfpgan:${version}`, depsFor("replicate", fakes.replicate)).run(
      jobOf(),
    );
    assert.equal(objectOf(posts(fakes.replicate)[0]?.body).version, version);
  });

  it("polls urls.get when the wait runs out, reporting the prediction's status", async () => {
    fakes.replicate.pendingPolls = 3;
    const job = jobOf();
    const { image } = await createReplicateEnhanceRoute(
      "nightmareai/real-esrgan",
      depsFor("replicate", fakes.replicate),
    ).run(job);
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 4, height: HEIGHT * 4 });
    assert.equal(fakes.replicate.polls, 3);
    assert.ok(job.progress.some((p) => p.stage === "replicate: processing"));
  });

  it("cancel reaches the prediction's cancel URL when the caller gives up", async () => {
    fakes.replicate.pendingPolls = 1_000;
    const controller = new AbortController();
    const route = createReplicateEnhanceRoute("nightmareai/real-esrgan", depsFor("replicate", fakes.replicate));
    const running = route.run(jobOf({ signal: controller.signal }));
    while (fakes.replicate.polls < 2) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error("client went away"));
    await assert.rejects(running, /client went away/);
    await waitFor(() => fakes.replicate.requests.some((r) => /^\/v1\/predictions\/\w+\/cancel$/.test(r.path)));
    const cancel = fakes.replicate.requests.find((r) => r.path.endsWith("/cancel"));
    assert.equal(cancel?.method, "POST");
    assert.equal(cancel?.headers.authorization, `Bearer ${REPLICATE_TOKEN}`);
  });

  it("the route's deadline cancels a running prediction too, and is a timeout", async () => {
    fakes.replicate.pendingPolls = 1_000;
    const route = createReplicateEnhanceRoute(
      "sczhou/codeformer",
      depsFor("replicate", fakes.replicate, { timeoutMs: 300 }),
    );
    await rejectsWith(route, jobOf({ mode: "faces" }), isProvider("timeout"));
    await waitFor(() => fakes.replicate.requests.some((r) => r.path.endsWith("/cancel")));
  });

  it("maps 500, 429 (with its Retry-After), an NSFW failure and a hang", async () => {
    const route = createReplicateEnhanceRoute(
      "nightmareai/real-esrgan",
      depsFor("replicate", fakes.replicate, { timeoutMs: 300 }),
    );
    fakes.replicate.mode = "error";
    await rejectsWith(route, jobOf(), isProvider("http"));
    fakes.replicate.mode = "capacity";
    await rejectsWith(route, jobOf(), (err) => isProvider("capacity")(err) && (err as ProviderError).retryAfter === 2);
    fakes.replicate.mode = "moderate";
    await rejectsWith(route, jobOf(), (err) => err instanceof ModerationError);
    fakes.replicate.mode = "hang";
    await rejectsWith(route, jobOf(), isProvider("timeout"));
  });

  it("refuses a model id that is not owner/model", () => {
    assert.throws(() => createReplicateEnhanceRoute("real-esrgan", depsFor("replicate", fakes.replicate)), /owner/);
  });
});

describe("fal:<endpoint>", () => {
  it("esrgan: submits to the queue, polls status, reads the response and downloads the image", async () => {
    fakes.fal.pendingPolls = 2;
    const route = createFalEnhanceRoute("fal-ai/esrgan", depsFor("fal", fakes.fal));
    assert.deepEqual([route.id, route.ai, route.generative], ["fal:fal-ai/esrgan", true, false]);
    const job = jobOf({ scale: 2 });
    const { image } = await route.run(job);
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 2, height: HEIGHT * 2 });
    const [submit] = posts(fakes.fal);
    assert.equal(submit?.path, "/fal-ai/esrgan");
    assert.equal(submit?.headers.authorization, `Key ${FAL_KEY}`);
    assert.deepEqual(await jsonInput(submit?.body, "image_url"), {
      image_url: `${WIDTH}x${HEIGHT}`,
      scale: 2,
      model: "RealESRGAN_x2plus",
      face: false,
      output_format: "png",
    });
    const paths = fakes.fal.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, "<id>")}`);
    assert.deepEqual(
      paths.filter((p) => !p.includes("/files/")),
      [
        "POST /fal-ai/esrgan",
        "GET /fal-ai/esrgan/requests/<id>/status",
        "GET /fal-ai/esrgan/requests/<id>/status",
        "GET /fal-ai/esrgan/requests/<id>/status",
        "GET /fal-ai/esrgan/requests/<id>",
      ],
    );
    assert.deepEqual(
      job.progress.map((p) => p.stage),
      ["fal: queued, position 0", "fal: running"],
    );
    assert.deepEqual(fakes.fal.violations, []);
  });

  it("faces turns on esrgan's face restorer; codeformer gets fidelity from strength", async () => {
    const deps = depsFor("fal", fakes.fal);
    await createFalEnhanceRoute("fal-ai/esrgan", deps).run(jobOf({ mode: "faces", scale: 4 }));
    await createFalEnhanceRoute("fal-ai/codeformer", deps).run(jobOf({ mode: "faces", strength: 0.25 }));
    const [esrgan, codeformer] = posts(fakes.fal);
    assert.deepEqual(await jsonInput(esrgan?.body, "image_url"), {
      image_url: `${WIDTH}x${HEIGHT}`,
      scale: 4,
      model: "RealESRGAN_x4plus",
      face: true,
      output_format: "png",
    });
    assert.deepEqual(await jsonInput(codeformer?.body, "image_url"), {
      image_url: `${WIDTH}x${HEIGHT}`,
      fidelity: 0.75,
      upscale_factor: 2,
      face_upscale: true,
    });
    assert.deepEqual(fakes.fal.violations, []);
  });

  it("aura-sr answers at its own 4× when 2× was asked", async () => {
    const { image } = await createFalEnhanceRoute("fal-ai/aura-sr", depsFor("fal", fakes.fal)).run(jobOf({ scale: 2 }));
    assert.deepEqual(await sizeOf(image), { width: WIDTH * 4, height: HEIGHT * 4 });
    assert.deepEqual(await jsonInput(posts(fakes.fal)[0]?.body, "image_url"), {
      image_url: `${WIDTH}x${HEIGHT}`,
      upscale_factor: 4,
      overlapping_tiles: true,
      checkpoint: "v2",
    });
  });

  it("clarity-upscaler is generative and carries the prompt and a creativity; a flagged result is moderation", async () => {
    const route = createFalEnhanceRoute("fal-ai/clarity-upscaler", depsFor("fal", fakes.fal));
    assert.equal(route.generative, true);
    await route.run(jobOf({ mode: "creative", prompt: "a fox in snow", strength: 0.4 }));
    assert.deepEqual(await jsonInput(posts(fakes.fal)[0]?.body, "image_url"), {
      image_url: `${WIDTH}x${HEIGHT}`,
      upscale_factor: 2,
      creativity: 0.4,
      enable_safety_checker: true,
      prompt: "a fox in snow",
    });
    fakes.fal.mode = "moderate";
    await rejectsWith(route, jobOf({ mode: "creative", prompt: "x" }), (err) => err instanceof ModerationError);
  });

  it("cancel reaches the queue's cancel URL (PUT) when the caller gives up", async () => {
    fakes.fal.pendingPolls = 1_000;
    const controller = new AbortController();
    const running = createFalEnhanceRoute("fal-ai/esrgan", depsFor("fal", fakes.fal)).run(
      jobOf({ signal: controller.signal }),
    );
    while (fakes.fal.polls < 2) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error("client went away"));
    await assert.rejects(running, /client went away/);
    await waitFor(() => fakes.fal.requests.some((r) => r.path.endsWith("/cancel")));
    const cancel = fakes.fal.requests.find((r) => r.path.endsWith("/cancel"));
    assert.equal(cancel?.method, "PUT");
    assert.equal(cancel?.headers.authorization, `Key ${FAL_KEY}`);
  });

  it("polling is bounded by the route's deadline, which is a timeout and cancels the request", async () => {
    fakes.fal.pendingPolls = 1_000;
    const route = createFalEnhanceRoute(
      "fal-ai/esrgan",
      depsFor("fal", fakes.fal, { timeoutMs: 300, pollIntervalMs: 50 }),
    );
    await rejectsWith(route, jobOf(), isProvider("timeout"));
    assert.ok(fakes.fal.polls <= 7, `${fakes.fal.polls} polls in 300 ms at 50 ms`);
    await waitFor(() => fakes.fal.requests.some((r) => r.path.endsWith("/cancel")));
  });

  it("maps 500, 429 and a hang", async () => {
    const route = createFalEnhanceRoute("fal-ai/aura-sr", depsFor("fal", fakes.fal, { timeoutMs: 300 }));
    fakes.fal.mode = "error";
    await rejectsWith(route, jobOf(), isProvider("http"));
    fakes.fal.mode = "capacity";
    await rejectsWith(route, jobOf(), (err) => isProvider("capacity")(err) && (err as ProviderError).retryAfter === 3);
    fakes.fal.mode = "hang";
    await rejectsWith(route, jobOf(), isProvider("timeout"));
  });

  it("refuses result URLs off fal's hosts", async () => {
    fakes.fal.foreign.polling = "http://127.0.0.2:9";
    await rejectsWith(
      createFalEnhanceRoute("fal-ai/esrgan", depsFor("fal", fakes.fal)),
      jobOf(),
      isProvider("malformed"),
    );
  });
});

async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) assert.fail("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
