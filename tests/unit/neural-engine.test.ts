// The neural engine end to end on real workers: seams, the strength mapping, alpha, the 4096 cap and operator models.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { OUTPUT_FORMAT_NAMES } from "@/lib/catalog/output-formats";
import { blendOver } from "@/lib/enhance/blend";
import { resizeLanczos, sharpenTo } from "@/lib/enhance/finish";
import { encodeModel, TensorDataType, toFloatTensor } from "@/lib/enhance/neural/onnx-proto";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import { chooseTileSize, planTiles } from "@/lib/enhance/neural/tiles";
import { createUpscaler, type Upscaler } from "@/lib/enhance/neural/upscale";
import { createNeuralEngine, planNetworkInput } from "@/lib/enhance/neural-engine";
import { enhanceRaw, targetSize } from "@/lib/enhance/pipeline";
import type { EnhanceEngine, Profile, RawImage } from "@/lib/enhance/types";
import { ENHANCE_PNG_OPTIONS, encodeOutput } from "@/lib/images/encode";
import { loadTestPhoto, measureDiff } from "../fixtures/photos";

const ROOT = path.resolve(__dirname, "../..");
const signal = new AbortController().signal;

/** A Real-ESRGAN-style ONNX without metadata: nearest 4× upscaling, so the scale must be probed. */
function writeNearestModel(dir: string): string {
  const file = path.join(dir, "nearest-x4.onnx");
  fs.writeFileSync(
    file,
    encodeModel({
      irVersion: 8,
      opset: 17,
      producerName: "test",
      producerVersion: "1",
      graphName: "nearest",
      nodes: [
        {
          name: "up",
          opType: "Resize",
          inputs: ["x", "", "scales"],
          outputs: ["y"],
          attrs: [
            { name: "mode", type: "string", value: "nearest" },
            { name: "coordinate_transformation_mode", type: "string", value: "asymmetric" },
            { name: "nearest_mode", type: "string", value: "floor" },
          ],
        },
      ],
      initializers: [toFloatTensor("scales", [4], new Float32Array([1, 1, 4, 4]))],
      inputs: [{ name: "x", elemType: TensorDataType.FLOAT, shape: [1, 3, "h", "w"] }],
      outputs: [{ name: "y", elemType: TensorDataType.FLOAT, shape: [1, 3, "H", "W"] }],
      metadata: [],
    }),
  );
  return file;
}

async function lanczosOf(image: RawImage, width: number, height: number): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .resize(width, height, { kernel: "lanczos3", fit: "fill" })
    .raw()
    .toBuffer();
}

describe("neural engine", () => {
  let pool: WorkerPool;
  let upscaler: Upscaler;
  let engine: EnhanceEngine;
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-neural-"));
    pool = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 2,
      workerData: { root: ROOT, cacheDir: path.join(tmp, "models"), threads: 1, device: "cpu" },
    });
    upscaler = createUpscaler(pool);
    engine = createNeuralEngine({ upscaler });
  });
  after(async () => {
    await pool.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("tiles cover every pixel exactly once", () => {
    for (const [w, h, t] of [
      [512, 512, 256],
      [1000, 333, 256],
      [5, 7, 256],
      [300, 300, 128],
    ]) {
      const seen = new Uint8Array(w * h);
      for (const tile of planTiles(w, h, t, 10)) {
        assert.ok(
          tile.w <= t &&
            tile.h <= t &&
            tile.ex >= 0 &&
            tile.ey >= 0 &&
            tile.ex + tile.ew <= w &&
            tile.ey + tile.eh <= h,
        );
        for (let y = tile.y; y < tile.y + tile.h; y++) for (let x = tile.x; x < tile.x + tile.w; x++) seen[y * w + x]++;
      }
      assert.ok(seen.every((v) => v === 1));
    }
  });

  it("cuts at least one tile per worker and, where it can, a multiple of the workers, each within the size", () => {
    assert.equal(chooseTileSize(1), 256);
    for (const workers of [1, 2, 3, 4])
      for (const [w, h] of [
        [600, 600],
        [512, 512],
        [256, 256],
        [1000, 333],
        [3, 1],
      ]) {
        const tiles = planTiles(w, h, 256, 10, workers);
        const label = `${w}×${h} on ${workers} workers: ${tiles.length} tiles`;
        assert.ok(
          tiles.every((t) => t.w <= 256 && t.h <= 256 && t.w > 0 && t.h > 0),
          label,
        );
        if (w * h >= workers) assert.equal(tiles.length % workers, 0, label);
        assert.equal(
          tiles.reduce((a, t) => a + t.w * t.h, 0),
          w * h,
          label,
        );
      }
    // 600² on 2 workers is 12 tiles (6 each), not 9 (5 and 4).
    assert.equal(planTiles(600, 600, 256, 10, 2).length, 12);
  });

  for (const pkg of ["esrgan-slim", "esrgan-medium"] as const) {
    it(`${pkg}: a tiled run equals an untiled one within 1/255 (no seams)`, async () => {
      const img = await loadTestPhoto(120, 90);
      const model = { kind: "package", pkg, scale: 2, precision: "fp32" } as const;
      const whole = await upscaler.upscale(model, img, { signal, tileSize: 0 });
      const tiled = await upscaler.upscale(model, img, { signal, tileSize: 40 });
      const d = measureDiff(whole.data, tiled.data);
      assert.ok(d.max <= 1, `max diff ${d.max}`);
      // Too little context does leave seams, so the check above can fail.
      const seamy = await upscaler.upscale(model, img, { signal, tileSize: 40, overlap: 2 });
      assert.ok(measureDiff(whole.data, seamy.data).max > 1);
    });
  }

  it("is lanczos3 at strength 0 and moves away from it strictly monotonically", async () => {
    const image = await loadTestPhoto(64, 48);
    const lanczos = await lanczosOf(image, 128, 96);
    const diffs: number[] = [];
    for (const strength of [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]) {
      const out = await engine.enhance({ image, width: 128, height: 96, strength, model: "fast", signal });
      assert.equal(out.engine, strength === 0 ? "lanczos3" : "onnx:esrgan-slim-x2");
      diffs.push(measureDiff(out.data, lanczos).mean);
    }
    assert.equal(diffs[0], 0);
    for (let i = 1; i < diffs.length; i++) assert.ok(diffs[i] > diffs[i - 1], `monotonic: ${diffs.join(", ")}`);
  });

  it("uses the 4× model for scale 4, and medium for quality", async () => {
    const image = await loadTestPhoto(40, 30);
    const out = await engine.enhance({ image, width: 160, height: 120, strength: 1, model: "quality", signal });
    assert.deepEqual([out.width, out.height, out.engine], [160, 120, "onnx:esrgan-medium-x4"]);
  });

  it("keeps transparency, resized with lanczos3", async () => {
    const rgb = await loadTestPhoto(32, 24);
    const data = Buffer.alloc(32 * 24 * 4);
    for (let i = 0; i < 32 * 24; i++) {
      rgb.data.copy(data, i * 4, i * 3, i * 3 + 3);
      data[i * 4 + 3] = (i % 32) * 8;
    }
    const image: RawImage = { data, width: 32, height: 24, channels: 4 };
    const out = await engine.enhance({ image, width: 64, height: 48, strength: 1, model: "fast", signal });
    assert.equal(out.channels, 4);
    const lanczos = await lanczosOf(image, 64, 48);
    for (let i = 3; i < out.data.length; i += 4) assert.equal(out.data[i], lanczos[i]);
  });

  it("caps the long side at 4096 px, lowering the scale and resizing the model output to fit", async () => {
    const image = await loadTestPhoto(2100, 12);
    const t = targetSize(2100, 12, 4);
    assert.deepEqual([t.width, t.height], [4096, 23]);
    const out = await engine.enhance({ image, width: t.width, height: t.height, strength: 1, model: "fast", signal });
    assert.deepEqual([out.width, out.height, out.engine], [4096, 23, "onnx:esrgan-slim-x2"]);
    // Inputs already over 4096 px are not upscaled, so the network is skipped, and the label says so.
    const huge = await loadTestPhoto(4500, 8);
    const h = targetSize(4500, 8, 2);
    const skipped = await engine.enhance({
      image: huge,
      width: h.width,
      height: h.height,
      strength: 1,
      model: "fast",
      signal,
    });
    assert.deepEqual([skipped.width, skipped.engine], [4096, "lanczos3+sharpen"]);
  });

  it("sizes the network's input to the capped output: input × native scale ≈ target", () => {
    const cases: [number, number, 2 | 4, [number, number] | undefined][] = [
      [4000, 4000, 2, [2048, 2048]], // capped to 4096²: the 2× model needs only 2048²
      [2048, 2048, 2, undefined], // exactly the model's scale
      [3000, 1000, 4, [2048, 683]], // 4× capped to 1.37×: the 2× model on two thirds of the input
      [1200, 300, 4, [1024, 256]], // 4× capped to 3.41×: the 4× model on 85 % of the input
      [1024, 512, 4, undefined],
      [2100, 12, 4, undefined], // 1.95× on the 2× model: under 5 % to gain, the input is used as is
    ];
    for (const [w, h, scale, expected] of cases) {
      const t = targetSize(w, h, scale);
      const native = t.scale <= 2 ? 2 : 4;
      assert.deepEqual(
        planNetworkInput({ width: w, height: h }, t, native),
        expected && { width: expected[0], height: expected[1] },
        `${w}×${h} at ${scale}×`,
      );
    }
  });

  it("runs the network on the reduced input when the cap lowers the scale, and stays lanczos3 at strength 0", async () => {
    const seen: string[] = [];
    const spy: Upscaler = {
      ...upscaler,
      upscale: (model, image, opts) => {
        seen.push(`${image.width}x${image.height}`);
        return upscaler.upscale(model, image, opts);
      },
    };
    const reducing = createNeuralEngine({ upscaler: spy });
    const image = await loadTestPhoto(4000, 40);
    const t = targetSize(4000, 40, 2);
    const lanczos = await lanczosOf(image, t.width, t.height);
    const diffs: number[] = [];
    for (const strength of [0, 0.5, 1]) {
      const out = await reducing.enhance({ image, width: t.width, height: t.height, strength, model: "fast", signal });
      assert.deepEqual([out.width, out.height], [4096, 41]);
      assert.equal(out.engine, strength === 0 ? "lanczos3" : "onnx:esrgan-slim-x2");
      diffs.push(measureDiff(out.data, lanczos).mean);
    }
    assert.deepEqual(seen, ["2048x21", "2048x21"], "the 2× network saw half the target, not the 4000 px upload");
    assert.equal(diffs[0], 0);
    assert.ok(diffs[1] > 0 && diffs[2] > diffs[1], `monotonic: ${diffs.join(", ")}`);
    // An operator model follows the effective scale too: its 4× serves a 2× target from half the input.
    seen.length = 0;
    const operator = createNeuralEngine({ upscaler: spy, modelPath: writeNearestModel(tmp) });
    const small = await loadTestPhoto(30, 20);
    const out = await operator.enhance({ image: small, width: 60, height: 40, strength: 1, model: "fast", signal });
    assert.deepEqual([out.width, out.height, out.engine, seen], [60, 40, "onnx:nearest-x4.onnx", ["15x10"]]);
  });

  it("finishes on a worker exactly as sharpen, lanczos3 and blendOver do on the main thread", async () => {
    const [w, h] = [300, 250];
    const rgb = await loadTestPhoto(w, h);
    const data = Buffer.alloc(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      rgb.data.copy(data, i * 4, i * 3, i * 3 + 3);
      data[i * 4 + 3] = i % 251;
    }
    const detailSource = await loadTestPhoto(2 * w, 2 * h); // any RGB at the network's scale
    for (const input of [rgb, { data, width: w, height: h, channels: 4 as const }]) {
      const before = Buffer.from(input.data);
      for (const [t, width, height] of [
        [0, 2 * w, 2 * h],
        [0.5, 2 * w, 2 * h],
        [1, 2 * w - 7, 2 * h - 3], // the network overshoots the target: resized first
      ]) {
        const onWorker = await upscaler.finish(input, detailSource, { width, height, strength: t }, { signal });
        const base = await resizeLanczos(input, width, height);
        const expected = blendOver(base, await sharpenTo(detailSource, width, height), t);
        assert.deepEqual([onWorker.width, onWorker.height, onWorker.channels], [width, height, input.channels]);
        assert.ok(onWorker.data.equals(expected), `${input.channels} channels, t=${t}`);
        if (t === 0) assert.ok(onWorker.data.equals(base.data), "strength 0 is the lanczos3 base");
      }
      assert.ok(input.data.equals(before), "the caller's input is left as it was");
    }
  });

  it("encodes on a worker into the output format, byte for byte what sharp makes of the PNG", async () => {
    const rgb = await loadTestPhoto(48, 40);
    const data = Buffer.alloc(48 * 40 * 4);
    for (let i = 0; i < 48 * 40; i++) {
      rgb.data.copy(data, i * 4, i * 3, i * 3 + 3);
      data[i * 4 + 3] = 255 - (i % 97);
    }
    for (const image of [rgb, { data, width: 48, height: 40, channels: 4 as const }])
      for (const format of OUTPUT_FORMAT_NAMES) {
        const output = { format, quality: 80 };
        const out = await engine.enhance({
          image,
          width: 96,
          height: 80,
          strength: 0.5,
          model: "fast",
          signal,
          output,
        });
        assert.ok(out.encoded, `${format}: the engine encoded it`);
        const png = await sharp(out.data, { raw: { width: 96, height: 80, channels: image.channels } })
          .png(ENHANCE_PNG_OPTIONS)
          .toBuffer();
        assert.ok(out.encoded.equals(await encodeOutput(png, output)), `${image.channels} channels, ${format}`);
        const profile: Profile = new Map();
        const piped = await enhanceRaw((job) => engine.enhance(job), image, {
          strength: 0.5,
          scale: 2,
          signal,
          output,
          profile,
        });
        assert.equal(piped.format, format);
        assert.ok(piped.bytes.equals(out.encoded), "the pipeline stores the worker's bytes");
        assert.ok(profile.has(`${format.toUpperCase()} encode (worker)`), "the worker encoded it");
        assert.deepEqual(
          [...profile.keys()].filter((k) => k.includes("(main")),
          [],
          "nothing encodes on the main side",
        );
      }
  });

  it("serves an operator ONNX model for both names, probing its scale", async () => {
    const operator = createNeuralEngine({ upscaler, modelPath: writeNearestModel(tmp) });
    const image = await loadTestPhoto(30, 20);
    for (const model of ["fast", "quality"] as const) {
      const out = await operator.enhance({ image, width: 60, height: 40, strength: 1, model, signal });
      assert.deepEqual([out.width, out.height, out.engine], [60, 40, "onnx:nearest-x4.onnx"]);
    }
    assert.equal((await upscaler.describe({ kind: "file", path: path.join(tmp, "nearest-x4.onnx") })).scale, 4);
  });

  it("stops an aborted job before its tiles run", async () => {
    const ctl = new AbortController();
    ctl.abort(new Error("gone"));
    const image = await loadTestPhoto(64, 48);
    await assert.rejects(
      engine.enhance({ image, width: 128, height: 96, strength: 1, model: "fast", signal: ctl.signal }),
      /gone/,
    );
  });
});
