// The converted ONNX models against the tfjs-wasm reference (mean abs diff ≤ 1/255), with tiles and without.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readOnnxMetadata } from "@/lib/enhance/neural/onnx-metadata";
import { convertPackageModel } from "@/lib/enhance/neural/package-models";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import type { ModelRef } from "@/lib/enhance/neural/protocol";
import { createUpscaler, type Upscaler } from "@/lib/enhance/neural/upscale";
import { loadTestPhoto, measureDiff } from "../fixtures/photos";
import { createTfjsReference } from "../fixtures/tfjs-reference";

const ROOT = path.resolve(__dirname, "../..");
const signal = new AbortController().signal;

describe("ESRGAN → ONNX conversion", () => {
  let pool: WorkerPool;
  let upscaler: Upscaler;
  let cacheDir: string;
  before(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-models-"));
    pool = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 2,
      workerData: { root: ROOT, cacheDir, threads: 1, device: "cpu" },
    });
    upscaler = createUpscaler(pool);
  });
  after(async () => {
    await pool.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  it("is deterministic and records scale, receptive radius and licence", () => {
    const a = convertPackageModel(ROOT, "esrgan-slim", 2);
    const b = convertPackageModel(ROOT, "esrgan-slim", 2);
    assert.ok(a.onnx.equals(b.onnx));
    const md = readOnnxMetadata(a.onnx);
    assert.deepEqual([md.scale, md.receptive_radius, md.license], ["2", "10", "MIT"]);
    assert.equal(a.info.flopsPerInputPixel, 445_088);
  });

  const cases: ["esrgan-slim" | "esrgan-medium", 2 | 4][] = [
    ["esrgan-slim", 2],
    ["esrgan-slim", 4],
    ["esrgan-medium", 2],
  ];
  for (const [pkg, scale] of cases) {
    it(`${pkg} x${scale} matches the tfjs-wasm reference, tiled and untiled`, async () => {
      const img = await loadTestPhoto(72, 56);
      const ref = await createTfjsReference(pkg, scale);
      try {
        const refWhole = await ref.upscale(img.data, img.width, img.height);
        const refTiled = await ref.upscale(img.data, img.width, img.height, { patchSize: 32, padding: 8 });
        const model: ModelRef = { kind: "package", pkg, scale, precision: "fp32" };
        const whole = await upscaler.upscale(model, img, { signal, tileSize: 0 });
        const tiled = await upscaler.upscale(model, img, { signal, tileSize: 24 }); // 3×3 tiles
        assert.deepEqual([whole.width, whole.height], [img.width * scale, img.height * scale]);
        for (const [label, ours, theirs] of [
          ["untiled", whole.data, refWhole],
          ["tiled", tiled.data, refWhole],
          ["both tiled", tiled.data, refTiled],
        ] as const) {
          const d = measureDiff(ours, theirs);
          assert.ok(d.mean <= 1, `${label}: mean abs diff ${d.mean.toFixed(3)} (0..255 units) > 1/255`);
        }
      } finally {
        await ref.dispose();
      }
    });
  }
});
