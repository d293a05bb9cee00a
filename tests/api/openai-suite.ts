// Contract 1.2, "OpenAI-compatible API (/v1)", driven by the real clients against the built app on the preview
// engine (and gamma-xl on a ComfyUI fake, for streams with partial images): the official `openai` SDK (6.x) and the
// AI SDK's OpenAI-compatible provider. Answers, images, errors (the SDK's own classes), retries, streams,
// idempotency, and one quota shared with /api, exactly, under load.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateImage } from "ai";
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { type App, runScript, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { call, multipart } from "../helpers/http";
import { meanDiff, pngOf } from "../helpers/images";

/** The client's `idempotencyKey` option is sent only by clients that name the header (openai-node leaves it unset). */
class IdempotentOpenAI extends OpenAI {
  protected override idempotencyHeader = "Idempotency-Key";
}

/** A mask of `width`×`height` in OpenAI's convention: transparent (change) right of the middle, opaque left. */
async function openaiMask(width: number, height: number) {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) data[i * 4 + 3] = i % width >= width / 2 ? 0 : 255;
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

async function rawOf(bytes: Buffer) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function runOpenAISuite(backend: Backend) {
  let app: App;
  let backends: Backends | undefined;
  let key: string;
  let photo: Buffer;
  let comfy: ComfyFake;

  async function newKey(limit?: number): Promise<string> {
    const args = ["create", "--label", `openai-${backend}`, ...(limit === undefined ? [] : ["--limit", String(limit)])];
    const out = await runScript(app, "keys", args);
    assert.equal(out.code, 0, out.stderr);
    return out.lines.at(-1) as string;
  }

  /** A client that counts the HTTP requests it makes. */
  function clientOf(apiKey: string, opts: { maxRetries?: number } = {}) {
    const counted = { requests: 0 };
    const client = new OpenAI({
      baseURL: `${app.url}/v1`,
      apiKey,
      ...opts,
      fetch: (input, init) => {
        counted.requests++;
        return fetch(input, init);
      },
    });
    return { client, counted };
  }

  async function remaining(apiKey: string): Promise<number> {
    const res = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${apiKey}` } });
    assert.equal(res.status, 200, res.text);
    return res.json.remaining;
  }

  before(async () => {
    backends = backend === "upstash" ? await startBackends() : undefined;
    comfy = await startComfyFake({ name: `openai-${backend}` });
    // gamma-xl runs on the ComfyUI fake (which has previews); every other model on the preview engine (none).
    app = await startApp({
      name: `openai-${backend}`,
      env: {
        ...backends?.env,
        COMFYUI_URLS: comfy.url,
        MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl",
        MODEL_ALPHA_PRO: "preview",
        MODEL_ALPHA_SCHNELL: "preview",
        MODEL_BETA_3: "preview",
      },
    });
    key = await newKey();
    photo = await pngOf(400, 300);
  });
  after(async () => {
    await app?.stop();
    await comfy?.close();
    await backends?.close();
  });

  describe(`OpenAI-compatible API (${backend})`, () => {
    it("generates with b64_json by default, with OpenAI's fields and headers beside Darkroom's", async () => {
      const { client } = clientOf(key);
      const before = await remaining(key);
      const { data: body, response } = await client.images
        .generate({ model: "alpha-schnell", prompt: "a lighthouse on a cliff" })
        .withResponse();
      assert.equal(body.data?.length, 1);
      const [image] = body.data ?? [];
      assert.equal(image.url, undefined);
      const png = Buffer.from(image.b64_json as string, "base64");
      const meta = await sharp(png).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1024, 1024]);
      assert.deepEqual([body.size, body.output_format, body.background], ["1024x1024", "png", "opaque"]);
      assert.ok(Math.abs(body.created - Date.now() / 1000) < 120);
      const extra = image as unknown as Record<string, unknown>;
      assert.equal(extra.ai, false, "the preview engine says it is not AI");
      assert.equal(extra.engine, "preview");
      assert.match(String(extra.id), /\S/);
      assert.match(response.headers.get("x-request-id") ?? "", /^req_/);
      assert.equal(response.headers.get("x-ratelimit-limit-requests"), "1000");
      assert.equal(response.headers.get("x-ratelimit-remaining-requests"), String(before - 1));
      assert.equal(response.headers.get("x-ratelimit-remaining"), String(before - 1));
      assert.match(response.headers.get("x-ratelimit-reset-requests") ?? "", /^(\d+h)?(\d+m)?\d+s$/);
      assert.equal(await remaining(key), before - 1, "one unit, on the same counter as /api");
    });

    it("answers URLs that resolve, n = 3 of them, each its own image and unit", async () => {
      const { client } = clientOf(key);
      const before = await remaining(key);
      const body = await client.images.generate({ prompt: "a red barn", n: 3, response_format: "url" });
      const data = body.data ?? [];
      assert.equal(data.length, 3);
      const ids = new Set<string>();
      const bodies = new Set<string>();
      for (const item of data) {
        assert.equal(item.b64_json, undefined);
        const res = await fetch(item.url as string);
        assert.equal(res.status, 200, item.url);
        assert.equal(res.headers.get("content-type"), "image/png");
        bodies.add(Buffer.from(await res.arrayBuffer()).toString("base64"));
        ids.add((item as unknown as { id: string }).id);
      }
      assert.equal(ids.size, 3);
      assert.equal(bodies.size, 3, "three different images (a seed each)");
      assert.equal(await remaining(key), before - 3);
    });

    it("maps size to the nearest published ratio", async () => {
      const { client } = clientOf(key);
      const cases: [string, string][] = [
        ["1536x1024", "1376x768"],
        ["1792x1024", "1376x768"],
        ["1024x1536", "768x1376"],
        ["256x256", "1024x1024"],
        ["auto", "1024x1024"],
      ];
      for (const [size, expected] of cases) {
        const body = await client.images.generate({
          prompt: "a field of tulips",
          size: size as "1024x1024",
          response_format: "url",
        });
        assert.equal(body.size, expected, size);
        const meta = await sharp(
          Buffer.from(await (await fetch(body.data?.[0].url as string)).arrayBuffer()),
        ).metadata();
        assert.equal(`${meta.width}x${meta.height}`, expected, `${size}: the answer's size is the image's`);
      }
    });

    it("encodes webp (inline and at a .webp URL)", async () => {
      const { client } = clientOf(key);
      const inline = await client.images.generate({
        prompt: "a harbour",
        output_format: "webp",
        output_compression: 40,
      });
      assert.equal(inline.output_format, "webp");
      const meta = await sharp(Buffer.from(inline.data?.[0].b64_json as string, "base64")).metadata();
      assert.equal(meta.format, "webp");
      const linked = await client.images.generate({
        prompt: "a harbour",
        output_format: "webp",
        response_format: "url",
      });
      const url = linked.data?.[0].url as string;
      assert.match(url, /\.webp$/);
      const res = await fetch(url);
      assert.equal(res.headers.get("content-type"), "image/webp");
    });

    it("edits with OpenAI's mask (toFile): transparent changes, opaque keeps; the image's aspect is kept", async () => {
      const { client } = clientOf(key);
      const mask = await openaiMask(400, 300);
      const edit = async (strength: string) =>
        client.images.edit({
          image: await toFile(photo, "photo.png", { type: "image/png" }),
          mask: await toFile(mask, "mask.png", { type: "image/png" }),
          prompt: "a red barn",
          ...({ strength, seed: 7 } as object),
        });
      const kept = await edit("0");
      const changed = await edit("1");
      const a = await rawOf(Buffer.from(kept.data?.[0].b64_json as string, "base64"));
      const b = await rawOf(Buffer.from(changed.data?.[0].b64_json as string, "base64"));
      assert.ok(Math.abs(a.width / a.height / (4 / 3) - 1) < 0.03, `${a.width}x${a.height} keeps 4:3`);
      assert.equal(changed.size, `${b.width}x${b.height}`);
      const w = a.width;
      assert.equal(meanDiff(a.data, b.data, w, 0, Math.floor(w / 2) - 4), 0, "the opaque half is kept");
      assert.ok(meanDiff(a.data, b.data, w, Math.ceil(w / 2) + 4, w) > 10, "the transparent half changed");
    });

    it("takes several images as image[] (the SDK's arrays) and edits the first", async () => {
      const { client } = clientOf(key);
      const other = await pngOf(300, 400);
      const body = await client.images.edit({
        image: [
          await toFile(photo, "a.png", { type: "image/png" }),
          await toFile(other, "b.png", { type: "image/png" }),
        ],
        prompt: "a lighthouse",
        response_format: "url",
      });
      const [w, h] = (body.size as string).split("x").map(Number);
      assert.ok(w > h, `${body.size}: the first image (4:3) is the one edited`);
    });

    it("makes variations close to the image, a fresh seed each", async () => {
      const { client } = clientOf(key);
      const before = await remaining(key);
      const body = await client.images.createVariation({
        image: await toFile(photo, "photo.png", { type: "image/png" }),
        n: 2,
      });
      const [first, second] = await Promise.all(
        (body.data ?? []).map((d) => rawOf(Buffer.from(d.b64_json as string, "base64"))),
      );
      assert.ok(Math.abs(first.width / first.height / (4 / 3) - 1) < 0.03);
      assert.notDeepEqual(first.data, second.data, "two variations differ");
      const source = await sharp(photo).resize(first.width, first.height, { fit: "fill" }).raw().toBuffer();
      const distance = meanDiff(first.data, source, first.width, 0, first.width);
      assert.ok(distance > 1 && distance < 100, `close to the image but not it (${distance.toFixed(1)})`);
      assert.equal(await remaining(key), before - 2);
    });

    it("lists and retrieves the four models; an unknown one is NotFoundError", async () => {
      const { client } = clientOf(key);
      const ids: string[] = [];
      for await (const model of client.models.list()) {
        assert.deepEqual([model.object, model.owned_by, typeof model.created], ["model", "darkroom", "number"]);
        ids.push(model.id);
      }
      assert.deepEqual(ids.sort(), ["alpha-pro", "alpha-schnell", "beta-3", "gamma-xl-1024-v1-0"]);
      const one = await client.models.retrieve("beta-3");
      assert.equal(one.id, "beta-3");
      await assert.rejects(client.models.retrieve("dall-e-3"), (err) => {
        assert.ok(err instanceof OpenAI.NotFoundError, String(err));
        assert.equal(err.type, "invalid_request_error");
        return true;
      });
    });

    it("streams: an engine without previews sends only the completed event (generations and edits)", async () => {
      const { client } = clientOf(key);
      const before = await remaining(key);
      const stream = await client.images.generate({ prompt: "a comet", stream: true, partial_images: 2 });
      const events = [];
      for await (const event of stream) events.push(event);
      assert.deepEqual(
        events.map((e) => e.type),
        ["image_generation.completed"],
      );
      const [done] = events as OpenAI.Images.ImageGenCompletedEvent[];
      const meta = await sharp(Buffer.from(done.b64_json, "base64")).metadata();
      assert.equal(`${meta.width}x${meta.height}`, done.size);
      assert.deepEqual(
        [done.output_format, done.background, typeof done.usage.total_tokens],
        ["png", "opaque", "number"],
      );
      assert.equal(await remaining(key), before - 1);

      const edits = await client.images.edit({
        image: await toFile(photo, "photo.png", { type: "image/png" }),
        prompt: "a comet",
        stream: true,
        output_format: "jpeg",
      });
      const editEvents = [];
      for await (const event of edits) editEvents.push(event);
      assert.deepEqual(
        editEvents.map((e) => e.type),
        ["image_edit.completed"],
      );
      const jpeg = await sharp(Buffer.from((editEvents[0] as { b64_json: string }).b64_json, "base64")).metadata();
      assert.equal(jpeg.format, "jpeg");
    });

    it("streams partial images from the engine's previews (ComfyUI), spread over the run, then the image", async () => {
      const { client } = clientOf(key);
      comfy.reset();
      comfy.previews = "JPEG";
      // A GPU's pace: a preview each 50 ms step, 30 steps for SDXL.
      comfy.stepDelayMs = 50;
      const before = await remaining(key);
      const stream = await client.images.generate({
        model: "gamma-xl-1024-v1-0",
        prompt: "a comet over the sea",
        stream: true,
        partial_images: 2,
        output_format: "webp",
      });
      const events: OpenAI.Images.ImageGenStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      assert.deepEqual(
        events.map((e) => e.type),
        ["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed"],
      );
      const partials = events.slice(0, 2) as OpenAI.Images.ImageGenPartialImageEvent[];
      assert.deepEqual(
        partials.map((e) => e.partial_image_index),
        [0, 1],
      );
      assert.ok(comfy.previewsSent.length > 2, `the engine offered ${comfy.previewsSent.length} previews`);
      const done = events[2] as OpenAI.Images.ImageGenCompletedEvent;
      const levels: number[] = [];
      for (const event of [...partials, done]) {
        const bytes = Buffer.from(event.b64_json, "base64");
        const meta = await sharp(bytes).metadata();
        assert.deepEqual([meta.format, `${meta.width}x${meta.height}`], ["webp", done.size], event.type);
        assert.equal(event.output_format, "webp");
        if (event.type === "image_generation.partial_image") levels.push((await sharp(bytes).stats()).channels[0].mean);
      }
      // The fake's previews brighten step by step: a later one was forwarded second, not two early ones.
      assert.ok(levels[1] - levels[0] > 20, `spread over the run: grey ${levels.map((l) => l.toFixed(0)).join(" → ")}`);
      assert.equal(done.size, "1024x1024");
      assert.equal(await remaining(key), before - 1);

      const edit = await client.images.edit({
        model: "gamma-xl-1024-v1-0",
        image: await toFile(photo, "photo.png", { type: "image/png" }),
        prompt: "a comet over the sea",
        stream: true,
        partial_images: 1,
      });
      const editTypes = [];
      for await (const event of edit) editTypes.push(event.type);
      assert.deepEqual(editTypes, ["image_edit.partial_image", "image_edit.completed"]);
    });

    it("a stream whose engine fails ends in an error event the SDK raises, and the unit comes back", async () => {
      const { client } = clientOf(key);
      comfy.reset();
      comfy.mode = "error";
      try {
        const before = await remaining(key);
        const stream = await client.images.generate({ model: "gamma-xl-1024-v1-0", prompt: "a comet", stream: true });
        await assert.rejects(
          (async () => {
            for await (const _ of stream) {
              // drain
            }
          })(),
          (err) => {
            assert.ok(err instanceof OpenAI.APIError, String(err));
            assert.equal((err.error as { code?: string }).code, "generation_failed");
            return true;
          },
        );
        // The wrapper settles the stream after its last event.
        for (let i = 0; i < 50 && (await remaining(key)) !== before; i++) await new Promise((r) => setTimeout(r, 100));
        assert.equal(await remaining(key), before, "a failed stream uses no unit");
      } finally {
        comfy.mode = "ok";
      }
    });

    it("a caller who closes a stream once the work started keeps the unit used, and the engine is stopped", async () => {
      const { client } = clientOf(key);
      comfy.reset();
      comfy.previews = "PNG";
      comfy.stepDelayMs = 100;
      const before = await remaining(key);
      const stream = await client.images.generate({
        model: "gamma-xl-1024-v1-0",
        prompt: "a comet",
        stream: true,
        partial_images: 3,
      });
      for await (const event of stream) {
        assert.equal(event.type, "image_generation.partial_image");
        break; // the SDK aborts the request
      }
      for (let i = 0; i < 100 && comfy.busy() > 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(comfy.busy(), 0, "the prompt was interrupted, not run to its end");
      assert.ok(comfy.stepsSent < 30, `stopped after ${comfy.stepsSent} of 30 steps`);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await remaining(key), before - 1, "the cost was spent: the unit stays used");
    });

    it("replays an Idempotency-Key: the same images, no second unit", async () => {
      const client = new IdempotentOpenAI({ baseURL: `${app.url}/v1`, apiKey: key });
      const before = await remaining(key);
      const idempotencyKey = `openai-${backend}-${Date.now()}`;
      const first = await client.images
        .generate({ prompt: "a windmill", response_format: "url" }, { idempotencyKey })
        .withResponse();
      const again = await client.images
        .generate({ prompt: "a windmill", response_format: "url" }, { idempotencyKey })
        .withResponse();
      assert.equal(again.response.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.data.data, first.data.data);
      assert.equal(await remaining(key), before - 1);
      // The plain header works with any client; a different request under the same key is refused.
      const { client: plain } = clientOf(key, { maxRetries: 0 });
      await assert.rejects(
        plain.images.generate({ prompt: "a watermill" }, { headers: { "Idempotency-Key": idempotencyKey } }),
        (err) => err instanceof OpenAI.UnprocessableEntityError && err.code === "idempotency_mismatch",
      );
    });

    it("replays four b64_json images byte for byte under an Idempotency-Key (kept as references)", async () => {
      const before = await remaining(key);
      const headers = {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        "Idempotency-Key": `b64-${backend}-${Date.now()}`,
      };
      const body = JSON.stringify({ prompt: "four lanterns", n: 4, response_format: "b64_json" });
      const first = await call(app.url, "/v1/images/generations", { method: "POST", headers, body });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.data.length, 4);
      const again = await call(app.url, "/v1/images/generations", { method: "POST", headers, body });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.ok(Buffer.compare(first.body, again.body) === 0, "the replay is the first answer, byte for byte");
      assert.equal(await remaining(key), before - 4);
    });

    it("raises the SDK's error classes: a bad key, a long prompt, a filtered prompt", async () => {
      const { client: bad } = clientOf("dr_live_not-a-real-key-0000000000000000");
      await assert.rejects(bad.images.generate({ prompt: "a cat" }), (err) => {
        assert.ok(err instanceof OpenAI.AuthenticationError, String(err));
        assert.equal(err.type, "authentication_error");
        assert.equal(err.code, "unauthorized");
        assert.match(err.requestID ?? "", /^req_/);
        return true;
      });
      const { client } = clientOf(key);
      const before = await remaining(key);
      await assert.rejects(client.images.generate({ prompt: "a".repeat(4001) }), (err) => {
        assert.ok(err instanceof OpenAI.BadRequestError, String(err));
        assert.deepEqual([err.param, err.code, err.type], ["prompt", "invalid_prompt", "invalid_request_error"]);
        return true;
      });
      // 4,000 characters is within OpenAI's limit (and past /api's 400).
      const long = await client.images.generate({ prompt: "a quiet harbour ".repeat(250), response_format: "url" });
      assert.equal(long.data?.length, 1);
      await assert.rejects(client.images.generate({ prompt: "explicit porn of a naked woman" }), (err) => {
        assert.ok(err instanceof OpenAI.BadRequestError, String(err));
        assert.deepEqual([err.status, err.code, err.type], [400, "moderation_blocked", "invalid_request_error"]);
        return true;
      });
      assert.equal(await remaining(key), before - 1, "only the long prompt was made");
    });

    it("a spent quota is RateLimitError after exactly one HTTP request: retry-after and x-should-retry false", async () => {
      const limited = await newKey(1);
      const { client, counted } = clientOf(limited);
      await client.images.generate({ prompt: "a kite", response_format: "url" });
      counted.requests = 0;
      await assert.rejects(client.images.generate({ prompt: "a kite" }), (err) => {
        assert.ok(err instanceof OpenAI.RateLimitError, String(err));
        assert.deepEqual([err.type, err.code], ["rate_limit_error", "rate_limited"]);
        assert.equal(err.headers.get("x-should-retry"), "false");
        const wait = Number(err.headers.get("retry-after"));
        assert.ok(Number.isInteger(wait) && wait > 0 && wait <= 86_400, `retry-after ${wait}`);
        assert.equal(err.headers.get("x-ratelimit-remaining-requests"), "0");
        return true;
      });
      assert.equal(counted.requests, 1, "the SDK did not retry");
    });

    it("works through the AI SDK's OpenAI-compatible provider: generate and edit", async () => {
      const provider = createOpenAICompatible({ baseURL: `${app.url}/v1`, apiKey: key, name: "darkroom" });
      const made = await generateImage({
        model: provider.imageModel("alpha-schnell"),
        prompt: "a paper boat",
        n: 2,
        size: "1536x1024",
      });
      assert.equal(made.images.length, 2);
      for (const image of made.images) {
        const meta = await sharp(Buffer.from(image.uint8Array)).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1376, 768]);
      }
      const edited = await generateImage({
        model: provider.imageModel("alpha-schnell"),
        prompt: { text: "a paper boat", images: [photo, await pngOf(300, 400)], mask: await openaiMask(400, 300) },
      });
      const meta = await sharp(Buffer.from(edited.images[0].uint8Array)).metadata();
      assert.ok((meta.width as number) > (meta.height as number), "the first image (4:3) was edited");
    });

    it("/v1 and /api count on one daily quota, exactly, under 12 parallel calls", async () => {
      const shared = await newKey(5);
      const { client } = clientOf(shared, { maxRetries: 0 });
      const calls = Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? client.images.generate({ prompt: `a boat ${i}`, response_format: "url" }).then(
              () => 200,
              (err) => (err as InstanceType<typeof OpenAI.APIError>).status,
            )
          : call(app.url, "/api/generate", {
              method: "POST",
              headers: { Authorization: `Bearer ${shared}`, "Content-Type": "application/json" },
              body: JSON.stringify({ prompt: `a boat ${i}` }),
            }).then((r) => r.status),
      );
      const statuses = await Promise.all(calls);
      assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 429).length, 7, statuses.join(","));
      assert.equal(await remaining(shared), 0);
      const usage = await call(app.url, "/api/usage?days=1", { headers: { Authorization: `Bearer ${shared}` } });
      assert.equal(usage.json.days.at(-1).generate, 5, "the usage history counts both");
    });

    it("answers bad input in OpenAI's error shape with its status and param, and uses nothing", async () => {
      const auth = { Authorization: `Bearer ${key}` };
      const json = (body: unknown) => ({
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const form = async (fields: Parameters<typeof multipart>[0]) => {
        const { body, contentType } = await multipart(fields);
        return { method: "POST", headers: { ...auth, "Content-Type": contentType }, body };
      };
      const png = (data: Buffer) => ({ data, type: "image/png", name: "image.png" });
      const black = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#000" } })
        .png()
        .toBuffer();
      const huge = Buffer.alloc(20 * 1024 * 1024, 1);
      const cases: [string, string, Parameters<typeof call>[2], number, string | null][] = [
        ["a JSON body on edits", "/v1/images/edits", json({ prompt: "a cat", image: "x" }), 400, null],
        ["multipart on generations", "/v1/images/generations", await form({ prompt: "a cat" }), 400, null],
        ["n of 11", "/v1/images/generations", json({ prompt: "a cat", n: 11 }), 400, "n"],
        ['size "big"', "/v1/images/generations", json({ prompt: "a cat", size: "big" }), 400, "size"],
        [
          'response_format "jpeg"',
          "/v1/images/generations",
          json({ prompt: "a cat", response_format: "jpeg" }),
          400,
          "response_format",
        ],
        ["stream with n 2", "/v1/images/generations", json({ prompt: "a cat", stream: true, n: 2 }), 400, "n"],
        [
          "background transparent",
          "/v1/images/generations",
          json({ prompt: "a cat", background: "transparent" }),
          400,
          "background",
        ],
        ["an unknown model", "/v1/images/generations", json({ prompt: "a cat", model: "dall-e-3" }), 400, "model"],
        ["an edit with no image", "/v1/images/edits", await form({ prompt: "a cat" }), 400, "image"],
        [
          "n as text that is no number",
          "/v1/images/edits",
          await form({ prompt: "a cat", image: png(photo), n: "two" }),
          400,
          "n",
        ],
        [
          "a mask without alpha and without white",
          "/v1/images/edits",
          await form({ prompt: "a cat", image: png(photo), mask: png(black) }),
          400,
          "mask",
        ],
        ["a 20 MB image", "/v1/images/edits", await form({ prompt: "a cat", image: png(huge) }), 413, "image"],
        ["a variation with no image", "/v1/images/variations", await form({ n: "1" }), 400, "image"],
      ];
      const before = await remaining(key);
      for (const [name, path, init, status, param] of cases) {
        const res = await call(app.url, path, init);
        assert.equal(res.status, status, `${name}: ${res.text}`);
        assert.match(String(res.headers["content-type"]), /^application\/json/);
        assert.match(String(res.headers["x-request-id"]), /^req_/, name);
        const { error } = res.json;
        assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"], name);
        assert.equal(error.type, "invalid_request_error", name);
        assert.equal(error.param, param, name);
        assert.ok(error.message.length > 0 && !/\bat .*\.ts:\d+/.test(error.message), name);
      }
      assert.equal(await remaining(key), before, "no bad input used a unit");
      const valid = await call(app.url, "/v1/images/generations", json({ prompt: "a cat", response_format: "url" }));
      assert.equal(valid.status, 200, "the same call with good input is made");
      const noKey = await call(app.url, "/v1/images/generations", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Requested-With": "XMLHttpRequest" },
        body: JSON.stringify({ prompt: "a cat" }),
      });
      assert.equal(noKey.status, 401, "the browser's Free plan does not open /v1");
      assert.equal(noKey.json.error.type, "authentication_error");
      const wrongMethod = await call(app.url, "/v1/images/generations", { headers: auth });
      assert.deepEqual([wrongMethod.status, wrongMethod.json.error.code], [405, "method_not_allowed"]);
      assert.equal(wrongMethod.headers.allow, "POST");
      const elsewhere = await call(app.url, "/v1/chat/completions", json({ model: "alpha-pro", messages: [] }));
      assert.deepEqual([elsewhere.status, elsewhere.json.error.type], [404, "invalid_request_error"]);
      // Like every /v1 answer, with the caller's limits (issue 33, item 9).
      assert.match(String(elsewhere.headers["x-ratelimit-limit-requests"]), /^\d+$/);
      assert.match(String(elsewhere.headers["x-ratelimit-reset-requests"]), /^(\d+h)?(\d+m)?\d+s$/);
    });
  });
}
