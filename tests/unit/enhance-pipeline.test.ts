// The sharp enhance pipeline: 4096 cap, faithful strength 0, and an effect that grows with strength.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { decodeImage } from "@/lib/enhance/decode";
import { enhanceRaw, targetSize } from "@/lib/enhance/pipeline";
import { sharpEngine } from "@/lib/enhance/sharp-engine";
import { pngOf } from "../helpers/images";

function meanAbsDiff(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

describe("targetSize", () => {
  it("doubles by default and lowers the scale to fit 4096 px", () => {
    assert.deepEqual(targetSize(100, 50, 2), { width: 200, height: 100, scale: 2 });
    assert.deepEqual(targetSize(3000, 1000, 4), { width: 4096, height: 1365, scale: 4096 / 3000 });
    assert.equal(targetSize(1024, 1024, 4).width, 4096);
    assert.equal(targetSize(5000, 5000, 2).width, 4096);
  });
});

describe("sharp engine", () => {
  it("is a plain lanczos3 resize at strength 0, and the effect grows with strength", async () => {
    const image = await decodeImage(await pngOf(96, 64), 25_000_000);
    const signal = new AbortController().signal;
    const lanczos = await sharp(image.data, { raw: { width: 96, height: 64, channels: 3 } })
      .resize(192, 128, { kernel: "lanczos3" })
      .raw()
      .toBuffer();
    const diffs: number[] = [];
    for (const strength of [0, 0.25, 0.5, 0.75, 1]) {
      const out = await sharpEngine.enhance({ image, width: 192, height: 128, strength, model: "fast", signal });
      diffs.push(meanAbsDiff(out.data, lanczos));
    }
    assert.equal(diffs[0], 0);
    for (let i = 1; i < diffs.length; i++) assert.ok(diffs[i] > diffs[i - 1], `monotonic: ${diffs.join(", ")}`);
  });

  it("keeps transparency", async () => {
    const image = await decodeImage(await pngOf(20, 10, { alpha: true }), 25_000_000);
    const out = await enhanceRaw((job) => sharpEngine.enhance(job), image, {
      strength: 1,
      scale: 2,
      signal: new AbortController().signal,
    });
    const meta = await sharp(out.bytes).metadata();
    assert.deepEqual([meta.width, meta.height, meta.hasAlpha], [40, 20, true]);
  });
});
