// Image input's domain pieces: the canonical mask (both conventions, scaling, refusals), output sizes, which routes
// take what, and the preview engine's transform checked pixel by pixel (masked-out kept, strength monotonic).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { assertModelTakes, inputsOf, variantFor } from "@/lib/engines/capabilities";
import { prepareEdit, seedsFor } from "@/lib/engines/generate";
import { previewEngine } from "@/lib/engines/preview";
import type { Route } from "@/lib/engines/routes";
import { nearestRatio, sizeForImage, sizingOf } from "@/lib/engines/sizing";
import type { GenerateJob } from "@/lib/engines/types";
import { ImageTooLarge, InvalidImage, InvalidMask, UnsupportedInput } from "@/lib/errors";
import { alphaMaskedPng, composite, decodeMask, whiteMaskPng } from "@/lib/images/edit-input";
import { bombPng, pngOf } from "../helpers/images";

const MAX_PIXELS = 25_000_000;

async function greyPng(width: number, height: number, value: (x: number, y: number) => number) {
  const data = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = value(x, y);
  return sharp(data, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

const route = (provider: string, modelId: string) => ({ id: `${provider}:${modelId}`, provider, modelId }) as Route;

describe("canonical mask", () => {
  it("reads white as change and scales to the image", async () => {
    const mask = await decodeMask(
      await greyPng(20, 10, (x) => (x >= 10 ? 255 : 0)),
      { width: 40, height: 20 },
      MAX_PIXELS,
    );
    assert.deepEqual([mask.width, mask.height], [40, 20]);
    assert.equal(mask.data[0], 0);
    assert.equal(mask.data[39], 255);
  });

  it("reads an alpha mask the OpenAI way: transparent means change", async () => {
    const rgba = Buffer.alloc(4 * 4 * 4, 255);
    for (let i = 0; i < 16; i++) if (i % 4 >= 2) rgba[i * 4 + 3] = 0;
    const png = await sharp(rgba, { raw: { width: 4, height: 4, channels: 4 } })
      .png()
      .toBuffer();
    const mask = await decodeMask(png, { width: 4, height: 4 }, MAX_PIXELS);
    assert.deepEqual([...mask.data.subarray(0, 4)], [0, 0, 255, 255]);
  });

  it("refuses a mask that marks nothing, a truncated one, and one over the pixel limit", async () => {
    await assert.rejects(decodeMask(await greyPng(8, 8, () => 0), { width: 8, height: 8 }, MAX_PIXELS), (e: Error) => {
      assert.ok(e instanceof InvalidMask);
      assert.match(e.message, /nothing to change/);
      return true;
    });
    const whole = await greyPng(64, 64, (x, y) => (x * y) % 256);
    await assert.rejects(
      decodeMask(whole.subarray(0, whole.length >> 1), { width: 8, height: 8 }, MAX_PIXELS),
      InvalidMask,
    );
    await assert.rejects(decodeMask(bombPng(), { width: 8, height: 8 }, MAX_PIXELS), InvalidMask);
  });

  it("converts per engine: white PNG for BFL and friends, 1 − mask as alpha for OpenAI and ComfyUI", async () => {
    const mask = { data: Buffer.from([0, 128, 255, 255]), width: 2, height: 2 };
    const whitePng = await whiteMaskPng(mask);
    assert.equal((await sharp(whitePng).metadata()).channels, 1, "a greyscale PNG");
    assert.deepEqual([...(await sharp(whitePng).extractChannel(0).raw().toBuffer())], [0, 128, 255, 255]);
    const rgb = Buffer.alloc(12, 50);
    const alpha = await sharp(await alphaMaskedPng({ rgb, width: 2, height: 2 }, mask))
      .raw()
      .toBuffer();
    assert.deepEqual([alpha[3], alpha[7], alpha[11], alpha[15]], [255, 127, 0, 0]);
  });

  it("composite keeps the image where the mask is black and blends grey", () => {
    const image = Buffer.from([10, 10, 10, 10, 10, 10]);
    const result = Buffer.from([210, 210, 210, 210, 210, 210]);
    const out = composite(image, result, { data: Buffer.from([0, 255]), width: 2, height: 1 });
    assert.deepEqual([...out], [10, 10, 10, 210, 210, 210]);
    const half = composite(image, result, { data: Buffer.from([51, 0]), width: 2, height: 1 });
    assert.equal(half[0], 50);
  });
});

describe("output sizes", () => {
  it("keeps the image's aspect within 3 % on routes that take any size", () => {
    for (const [w, h] of [
      [400, 300],
      [1920, 1080],
      [1000, 1333],
      [777, 555],
      [3000, 1000],
    ]) {
      for (const sizing of [sizingOf(route("preview", "")), sizingOf(route("bfl", "flux-kontext-pro"))]) {
        const size = sizeForImage(sizing, { width: w, height: h }, 1024 * 1024);
        const drift = Math.abs(size.width / size.height / (w / h) - 1);
        assert.ok(drift < 0.03, `${w}x${h} → ${size.width}x${size.height} (${(drift * 100).toFixed(2)} %)`);
        if (sizing.kind === "any") assert.equal(size.width % sizing.multiple, 0);
      }
    }
  });

  it("uses the nearest fixed size where the route has fixed ones", () => {
    assert.deepEqual(sizeForImage(sizingOf(route("openai", "gpt-image-1")), { width: 400, height: 300 }, 1), {
      width: 1536,
      height: 1024,
    });
    assert.deepEqual(sizeForImage(sizingOf(route("stability", "x")), { width: 1000, height: 1000 }, 1), {
      width: 1024,
      height: 1024,
    });
    assert.equal(nearestRatio({ width: 1376, height: 768 }), "16:9");
  });

  it("prepareEdit: an explicit ratio wins; bombs are 413 before decoding; non-images 400", async () => {
    const edit = await prepareEdit(
      { image: await pngOf(400, 300), strength: 0.5 },
      { model: "alpha-pro", ratio: "9:16" },
      MAX_PIXELS,
    );
    assert.deepEqual([edit.input.width, edit.input.height, edit.ratio], [768, 1376, "9:16"]);
    await assert.rejects(
      prepareEdit({ image: bombPng(), strength: 0.5 }, { model: "alpha-pro" }, MAX_PIXELS),
      ImageTooLarge,
    );
    await assert.rejects(
      prepareEdit({ image: Buffer.from("nope"), strength: 0.5 }, { model: "alpha-pro" }, MAX_PIXELS),
      InvalidImage,
    );
  });

  it("each image gets its own seed: the caller's and the ones after it", () => {
    assert.deepEqual(seedsFor(4294967295, 3), [4294967295, 0, 1]);
    const fresh = seedsFor(undefined, 4);
    assert.equal(fresh[0], undefined);
    assert.equal(new Set(fresh.slice(1)).size, 3);
  });
});

describe("which routes take what", () => {
  const env = { baseUrls: {}, local: { comfyuiWorkflows: ["sdxl", "sdxl-img2img"], a1111: true } };

  it("FLUX 1.1 [pro] edits go to Kontext and masks to Fill; Together takes an image but no mask", () => {
    assert.equal(variantFor("alpha-pro", route("bfl", "flux-pro-1.1"), "image", env)?.modelId, "flux-kontext-pro");
    assert.equal(variantFor("alpha-pro", route("bfl", "flux-pro-1.1"), "mask", env)?.modelId, "flux-pro-1.0-fill");
    const together = route("together", "black-forest-labs/FLUX.1.1-pro");
    assert.equal(variantFor("alpha-pro", together, "image", env)?.modelId, "black-forest-labs/FLUX.1-kontext-pro");
    assert.equal(variantFor("alpha-pro", together, "mask", env), null);
  });

  it("operators override the edit model per model and provider", () => {
    const overridden = { ...env, overrides: { "alpha-pro": { image: { bfl: "flux-kontext-max" } } } };
    assert.equal(
      variantFor("alpha-pro", route("bfl", "flux-pro-1.1"), "image", overridden)?.modelId,
      "flux-kontext-max",
    );
  });

  it("ComfyUI takes what its -img2img and -inpaint workflows allow; inputs and refusals follow", () => {
    const chain = [route("comfyui", "sdxl")];
    assert.deepEqual(inputsOf("gamma-xl-1024-v1-0", chain, env), ["text", "image"]);
    const chains = {
      "alpha-pro": [route("preview", "")],
      "beta-3": [route("a1111", "x")],
      "gamma-xl-1024-v1-0": chain,
      "alpha-schnell": [route("together", "black-forest-labs/FLUX.1-schnell")],
    };
    assert.throws(
      () => assertModelTakes("alpha-schnell", "image", chains, env),
      (e: Error) => e instanceof UnsupportedInput && /alpha-pro, beta-3, gamma-xl-1024-v1-0/.test(e.message),
    );
    assert.throws(
      () => assertModelTakes("gamma-xl-1024-v1-0", "mask", chains, env),
      (e: Error) => e instanceof UnsupportedInput && /alpha-pro, beta-3\./.test(e.message),
    );
    assertModelTakes("gamma-xl-1024-v1-0", "image", chains, env);
  });
});

describe("preview engine with an image", () => {
  async function run(strength: number) {
    const edit = await prepareEdit({ image: await pngOf(300, 200), strength }, { model: "alpha-pro" }, MAX_PIXELS);
    const job: GenerateJob = {
      prompt: "a red barn",
      styledPrompt: "a red barn",
      model: "alpha-pro",
      style: "Photorealistic",
      ratio: edit.ratio,
      width: edit.input.width,
      height: edit.input.height,
      seed: 3,
      input: edit.input,
      requestId: "req_test",
      signal: new AbortController().signal,
    };
    const out = await previewEngine.generate(job);
    return { out: await sharp(out.png).raw().toBuffer(), image: edit.input.rgb };
  }
  const diff = (a: Buffer, b: Buffer) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;

  it("strength 0 returns the image; the change grows with strength", async () => {
    const zero = await run(0);
    assert.equal(diff(zero.out, zero.image), 0);
    const diffs = [];
    for (const s of [0.25, 0.5, 0.75, 1]) {
      const r = await run(s);
      diffs.push(diff(r.out, r.image));
    }
    for (let i = 1; i < diffs.length; i++) assert.ok(diffs[i] > diffs[i - 1], diffs.join(" < "));
    assert.equal(previewEngine.ai, false);
  });
});
