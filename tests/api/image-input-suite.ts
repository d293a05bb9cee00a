// Contract 1.2, "Image input" and "Several images, and output formats", against the real built app on the preview
// engine (no keys), on either backend: every bad input of issue 20 with its code and nothing used, the mask and
// strength checked pixel by pixel, n with its units, formats with their Content-Type, jobs and idempotent replays.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { type App, createKey, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, generate, multipart, type Reply } from "../helpers/http";
import { bombPng, meanDiff, pngOf } from "../helpers/images";

type Fields = Parameters<typeof multipart>[0];
const png = (data: Buffer) => ({ data, type: "image/png", name: "image.png" });

/** A mask of `width`×`height`: white (change) right of `split` (a fraction of the width), black (keep) left. */
async function halfMask(width: number, height: number, split = 0.5, opts: { alpha?: boolean } = {}) {
  const channels = opts.alpha ? 4 : 1;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const change = x >= width * split;
      const i = (y * width + x) * channels;
      if (opts.alpha) {
        data[i + 3] = change ? 0 : 255; // OpenAI's convention: transparent means change
      } else data[i] = change ? 255 : 0;
    }
  }
  return sharp(data, { raw: { width, height, channels } }).png().toBuffer();
}

async function rawOf(bytes: Buffer) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function runImageInputSuite(backend: Backend) {
  let app: App;
  let backends: Backends | undefined;
  let lastOctet = 10;
  const nextIp = () => `127.0.1.${lastOctet++}`;
  let photo: Buffer;

  before(async () => {
    backends = backend === "upstash" ? await startBackends() : undefined;
    app = await startApp({ name: `image-input-${backend}`, env: backends?.env });
    photo = await pngOf(400, 300);
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  async function edit(fields: Fields, from: string, headers: Record<string, string> = BROWSER): Promise<Reply> {
    const { body, contentType } = await multipart(fields);
    return call(app.url, "/api/generate", {
      method: "POST",
      headers: { ...headers, "Content-Type": contentType },
      body,
      from,
    });
  }

  async function remaining(from: string, headers: Record<string, string> = BROWSER): Promise<number> {
    const res = await call(app.url, "/api/status", { headers, from });
    assert.equal(res.status, 200, res.text);
    return res.json.remaining;
  }

  async function fetchImage(url: string) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
    return { type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  function assertError(res: Reply, status: number, code: string, param?: string) {
    assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${res.text}`);
    assert.equal(res.json.success, false);
    assert.equal(res.json.error.code, code, res.text);
    assert.ok(res.json.error.message.length > 0);
    if (param) assert.equal(res.json.error.param, param, res.text);
  }

  describe(`image input (${backend})`, () => {
    it("status reports api_revision 1.2 and each model's inputs", async () => {
      const res = await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() });
      assert.equal(res.json.api_revision, "1.2");
      assert.equal(res.json.version, "1.0");
      for (const model of res.json.models) assert.deepEqual(model.inputs, ["text", "image", "mask"], model.name);
    });

    it("a 1.1 request gets the 1.1 answer: no images list", async () => {
      const res = await generate(app.url, { prompt: "a lighthouse" }, { from: nextIp() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.images, undefined);
      assert.match(res.json.url, /\.png$/);
    });

    it("image-to-image keeps the image's aspect, is labelled, and strength 0 returns the image", async () => {
      const from = nextIp();
      const res = await edit({ prompt: "a red barn", image: png(photo), strength: "0" }, from);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.ai, false);
      assert.equal(res.json.engine, "preview");
      const { width, height } = res.json;
      assert.ok(Math.abs(width / height / (400 / 300) - 1) < 0.03, `${width}x${height} keeps 4:3`);
      assert.equal(res.json.images.length, 1);
      assert.equal(res.json.images[0].url, res.json.url);
      const out = await rawOf((await fetchImage(res.json.url)).bytes);
      assert.deepEqual([out.width, out.height], [width, height], "width and height in the answer are the truth");
      const expected = await sharp(photo).resize(width, height, { fit: "fill" }).raw().toBuffer();
      assert.equal(meanDiff(out.data, expected, width), 0, "strength 0 returns the image");
    });

    it("an explicit ratio wins over the image's aspect", async () => {
      const res = await edit({ prompt: "a red barn", image: png(photo), ratio: "9:16" }, nextIp());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.ratio, "9:16");
      assert.ok(res.json.height > res.json.width);
    });

    it("text fields are limited in characters, not bytes: 400 CJK or emoji code points edit", async () => {
      const cjk = "灯".repeat(400); // 1,200 bytes of UTF-8
      const emoji = "🌊".repeat(400); // 1,600 bytes of UTF-8
      const from = nextIp();
      const res = await edit({ prompt: cjk, negative_prompt: emoji, image: png(photo) }, from);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.success, true);
      // One code point more is the schema's refusal, not the multipart reader's.
      assertError(await edit({ prompt: `${cjk}灯`, image: png(photo) }, from), 400, "invalid_prompt");
    });

    it("the mask keeps what it marks black, at any strength; the change grows with strength", async () => {
      const from = nextIp();
      const mask = await halfMask(400, 300);
      const diffs: number[] = [];
      let base: Buffer | undefined;
      for (const strength of ["0", "0.3", "0.6", "1"]) {
        const res = await edit({ prompt: "a red barn", image: png(photo), mask: png(mask), strength, seed: "7" }, from);
        assert.equal(res.status, 200, res.text);
        const out = await rawOf((await fetchImage(res.json.url)).bytes);
        base ??= out.data;
        const w = out.width;
        // Away from the boundary, where the scaled mask is pure black or white.
        assert.equal(meanDiff(out.data, base, w, 0, Math.floor(w / 2) - 4), 0, `kept half unchanged at ${strength}`);
        diffs.push(meanDiff(out.data, base, w, Math.ceil(w / 2) + 4, w));
      }
      assert.equal(diffs[0], 0);
      for (let i = 1; i < diffs.length; i++) assert.ok(diffs[i] > diffs[i - 1], `monotonic: ${diffs.join(" < ")}`);
    });

    it("an OpenAI-style alpha mask reads transparent as change, and a mask of another size is scaled", async () => {
      const from = nextIp();
      const res = await edit(
        {
          prompt: "a red barn",
          image: png(photo),
          mask: png(await halfMask(100, 75, 0.5, { alpha: true })),
          strength: "1",
        },
        from,
      );
      assert.equal(res.status, 200, res.text);
      const out = await rawOf((await fetchImage(res.json.url)).bytes);
      const expected = await sharp(photo).resize(out.width, out.height, { fit: "fill" }).raw().toBuffer();
      const w = out.width;
      assert.equal(meanDiff(out.data, expected, w, 0, Math.floor(w / 2) - 8), 0, "opaque half kept");
      assert.ok(meanDiff(out.data, expected, w, Math.ceil(w / 2) + 8, w) > 5, "transparent half changed");
    });

    it("n=4 in webp: four images, each its own seed and record, four units", async () => {
      const { key } = await createKey(app, "image-input-n");
      const auth = { Authorization: `Bearer ${key}` };
      const from = nextIp();
      const before = await remaining(from, auth);
      const res = await generate(
        app.url,
        { prompt: "four lighthouses", n: 4, output_format: "webp", output_quality: 70 },
        { from, headers: auth },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.images.length, 4);
      assert.equal(new Set(res.json.images.map((i: { id: string }) => i.id)).size, 4);
      assert.equal(new Set(res.json.images.map((i: { seed: number }) => i.seed)).size, 4);
      assert.equal(res.json.url, res.json.images[0].url);
      assert.equal(res.json.remaining, before - 4);
      assert.equal(await remaining(from, auth), before - 4);
      for (const image of res.json.images) {
        assert.match(image.url, /\.webp$/);
        assert.equal(typeof image.delete_token, "string");
        const got = await fetchImage(image.url);
        assert.equal(got.type, "image/webp");
        const meta = await sharp(got.bytes).metadata();
        assert.equal(meta.format, "webp");
        assert.equal(meta.exif, undefined, "metadata stripped");
      }
      const list = await call(app.url, "/api/images?limit=10", { headers: auth, from });
      assert.equal(list.json.images.filter((i: { format?: string }) => i.format === "webp").length, 4);
    });

    it("jpeg and avif outputs carry their extension and Content-Type, on generate and enhance", async () => {
      const from = nextIp();
      const jpeg = await generate(app.url, { prompt: "a jpeg", output_format: "jpeg" }, { from });
      assert.equal(jpeg.status, 200, jpeg.text);
      assert.match(jpeg.json.url, /\.jpg$/);
      assert.equal((await fetchImage(jpeg.json.url)).type, "image/jpeg");
      const { body, contentType } = await multipart({ image: png(await pngOf(64, 48)), output_format: "avif" });
      const enhanced = await call(app.url, "/api/enhance", {
        method: "POST",
        headers: { ...BROWSER, "Content-Type": contentType },
        body,
        from,
      });
      assert.equal(enhanced.status, 200, enhanced.text);
      assert.match(enhanced.json.url, /\.avif$/);
      const got = await fetchImage(enhanced.json.url);
      assert.equal(got.type, "image/avif");
      assert.equal((await sharp(got.bytes).metadata()).format, "heif");
    });

    it("with fewer units left than n, 429 and nothing is used", async () => {
      const from = nextIp();
      const first = await generate(app.url, { prompt: "three", n: 3 }, { from });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.remaining, 2);
      const refused = await generate(app.url, { prompt: "three more", n: 3 }, { from });
      assertError(refused, 429, "rate_limited");
      assert.equal(await remaining(from), 2);
    });

    it("image_id: your own library image works and is recorded as the source; anyone else's is 404", async () => {
      const { key } = await createKey(app, "image-input-library");
      const auth = { Authorization: `Bearer ${key}` };
      const from = nextIp();
      const first = await generate(app.url, { prompt: "a harbour", ratio: "16:9" }, { from, headers: auth });
      assert.equal(first.status, 200, first.text);
      const second = await generate(
        app.url,
        { prompt: "the harbour at night", image_id: first.json.id, strength: 0.4 },
        { from, headers: auth },
      );
      assert.equal(second.status, 200, second.text);
      assert.equal(second.json.source_image_id, first.json.id);
      assert.equal(second.json.ratio, "16:9");
      const list = await call(app.url, "/api/images?limit=5", { headers: auth, from });
      const record = list.json.images.find((i: { id: string }) => i.id === second.json.id);
      assert.equal(record.source_image_id, first.json.id);
      assert.equal(record.strength, 0.4);

      const stranger = nextIp();
      const before = await remaining(stranger);
      const foreign = await generate(app.url, { prompt: "not mine", image_id: first.json.id }, { from: stranger });
      assertError(foreign, 404, "not_found");
      const unknown = await generate(app.url, { prompt: "nothing", image_id: "f".repeat(32) }, { from: stranger });
      assertError(unknown, 404, "not_found");
      assert.equal(await remaining(stranger), before, "nothing used");
    });

    it("async jobs and idempotent replays carry images; a key covers the uploaded bytes", async () => {
      const { key } = await createKey(app, "image-input-jobs");
      const headers = { ...BROWSER, Authorization: `Bearer ${key}` };
      const from = nextIp();
      const accepted = await edit({ prompt: "a job", image: png(photo), n: "2" }, from, {
        ...headers,
        Prefer: "respond-async",
      });
      assert.equal(accepted.status, 202, accepted.text);
      let job: Reply | undefined;
      for (let i = 0; i < 200; i++) {
        job = await call(app.url, `/api/jobs/${accepted.json.id}`, { headers, from });
        if (job.json.status === "succeeded" || job.json.status === "failed") break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(job?.json.status, "succeeded", job?.text);
      assert.equal(job?.json.result.images.length, 2);
      assert.equal(job?.json.result.url, job?.json.result.images[0].url);

      const keyed = { ...headers, "Idempotency-Key": "edit-once" };
      const once = await edit({ prompt: "keyed", image: png(photo) }, from, keyed);
      assert.equal(once.status, 200, once.text);
      const again = await edit({ prompt: "keyed", image: png(photo) }, from, keyed);
      assert.equal(again.status, 200);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(again.json, once.json);
      const other = await edit({ prompt: "keyed", image: png(await pngOf(400, 301)) }, from, keyed);
      assertError(other, 422, "idempotency_mismatch");
    });

    describe("bad input: the contract's error, no 500, nothing used", () => {
      const cases: [string, () => Promise<Fields | Record<string, unknown>>, number, string, string?][] = [
        [
          "a mask without an image",
          async () => ({ prompt: "x", mask: png(await halfMask(40, 30)) }),
          400,
          "invalid_mask",
          "mask",
        ],
        [
          "an all-black mask",
          async () => ({ prompt: "x", image: png(photo), mask: png(await halfMask(40, 30, 1)) }),
          400,
          "invalid_mask",
          "mask",
        ],
        [
          "a truncated mask",
          async () => {
            const mask = await halfMask(400, 300);
            return { prompt: "x", image: png(photo), mask: png(mask.subarray(0, Math.floor(mask.length * 0.6))) };
          },
          400,
          "invalid_mask",
          "mask",
        ],
        ["n of 0", async () => ({ prompt: "x", n: 0 }), 400, "invalid_n", "n"],
        ["n of 5", async () => ({ prompt: "x", n: "5" }), 400, "invalid_n", "n"],
        [
          "output_format=gif",
          async () => ({ prompt: "x", output_format: "gif" }),
          400,
          "invalid_output_format",
          "output_format",
        ],
        [
          "output_quality=0",
          async () => ({ prompt: "x", output_quality: 0 }),
          400,
          "invalid_output_format",
          "output_quality",
        ],
        ["a decompression bomb", async () => ({ prompt: "x", image: png(bombPng()) }), 413, "image_too_large"],
        ["an image over 25 MP", async () => ({ prompt: "x", image: png(bombPng(5001, 5001)) }), 413, "image_too_large"],
        [
          "strength without an image",
          async () => ({ prompt: "x", strength: 0.5 }),
          400,
          "invalid_strength",
          "strength",
        ],
        [
          "strength out of range",
          async () => ({ prompt: "x", image: png(photo), strength: "1.5" }),
          400,
          "invalid_strength",
          "strength",
        ],
        [
          "an image that is not one",
          async () => ({ prompt: "x", image: png(Buffer.from("not an image")) }),
          400,
          "invalid_image",
        ],
      ];
      for (const [name, build, status, code, param] of cases) {
        it(name, async () => {
          const from = nextIp();
          const before = await remaining(from);
          const fields = await build();
          const isForm = Object.values(fields).some((v) => typeof v === "object") || typeof fields.n === "string";
          const res = isForm
            ? await edit(
                Object.fromEntries(
                  Object.entries(fields).map(([k, v]) => [k, typeof v === "object" ? v : String(v)]),
                ) as Fields,
                from,
              )
            : await generate(app.url, fields, { from });
          assertError(res, status, code, param);
          assert.equal(await remaining(from), before, "nothing used");
        });
      }
    });
  });
}
