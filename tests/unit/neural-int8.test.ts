// The int8 models against fp32 on the held-out photos (never used for calibration), through the real workers:
// the PSNR loss at strength 1 the precision table claims, a deterministic output, flat-area crops for the eye, and the fallback
// to fp32 of a worker that cannot run int8.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { ENHANCE_PACKAGES } from "@/lib/catalog/enhance-modes";
import { int8ModelPath } from "@/lib/enhance/neural/calibrate";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import type { ModelRef } from "@/lib/enhance/neural/protocol";
import { createUpscaler, type Upscaler } from "@/lib/enhance/neural/upscale";
import { createNeuralEngine } from "@/lib/enhance/neural-engine";
import { choosePrecision, INT8_HELD_OUT_LOSS_DB, INT8_MAX_PSNR_LOSS_DB, int8WeightBits } from "@/lib/enhance/precision";
import { ENHANCE_SCALES } from "@/lib/schemas/enhance-rules";
import { loadHeldOut, measureInt8Loss } from "../fixtures/held-out";
import { type Rgb, resizeLanczos } from "../fixtures/photos";

const ROOT = path.resolve(__dirname, "../..");
const ARTEFACT = path.join(ROOT, "test-results", "int8-vs-fp32-crops.png");
const signal = new AbortController().signal;
const bits = int8WeightBits();

/** Captures what the workers log (their console is forwarded to this process's stdout). */
function captureStdout() {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    lines.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  return { lines, restore: () => (process.stdout.write = write) };
}

describe("int8 enhance models", () => {
  let pool: WorkerPool;
  let upscaler: Upscaler;
  let tmp: string;
  let photos: Map<string, Rgb>;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-int8-"));
    pool = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 1,
      workerData: { root: ROOT, cacheDir: path.join(tmp, "models"), threads: 2, device: "cpu", maxSessions: 4 },
    });
    upscaler = createUpscaler(pool);
    photos = await loadHeldOut();
  });
  after(async () => {
    await pool.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const run = async (model: ModelRef, img: Rgb) => (await upscaler.upscale(model, img, { signal })).data;

  for (const pkg of ENHANCE_PACKAGES)
    for (const scale of ENHANCE_SCALES) {
      const key = `${pkg}-x${scale}` as const;
      it(`${key}: int8 loses what scripts/measure-int8.ts wrote (${bits}-bit weights here), deterministically`, async () => {
        const { loss, runs } = await measureInt8Loss(upscaler, pkg, scale, photos, signal);
        const first = runs[0];
        const lr = await resizeLanczos(photos.get(first.name)!, first.width / scale, first.height / scale);
        const again = await createNeuralEngine({ upscaler, precisionOf: () => "int8" }).enhance({
          image: lr,
          width: first.width,
          height: first.height,
          strength: 1,
          model: pkg === "esrgan-slim" ? "fast" : "quality",
          signal,
        });
        assert.deepEqual(again.data, first.int8, `${first.name}: int8 is deterministic for a fixed input`);
        const written = INT8_HELD_OUT_LOSS_DB[bits][key];
        assert.ok(
          Math.abs(loss - written) <= 0.02,
          `measured loss ${loss.toFixed(3)} dB, lib/enhance/int8-held-out.json says ${written}: run scripts/measure-int8.ts`,
        );
        if (choosePrecision(pkg, scale, bits, undefined) === "int8")
          assert.ok(loss <= INT8_MAX_PSNR_LOSS_DB, `int8 by default, yet it loses ${loss.toFixed(3)} dB`);
        else assert.ok(written > INT8_MAX_PSNR_LOSS_DB, "fp32 by default only when int8 loses more than the bar");
        if (key === "esrgan-slim-x2") {
          const crops = await Promise.all(
            runs.map((r) => sideBySide(r.fp32, r.int8, r.width, r.height, FLAT_AREAS[r.name] ?? [0, 0])),
          );
          fs.mkdirSync(path.dirname(ARTEFACT), { recursive: true });
          fs.writeFileSync(ARTEFACT, await stack(crops));
        }
      });
    }

  it("a worker that cannot run int8 falls back to fp32 with a log line, and answers", async () => {
    const cacheDir = path.join(tmp, "broken-models");
    fs.mkdirSync(cacheDir, { recursive: true });
    // A damaged int8 file in the cache: the session cannot open, as on a runtime without the int8 kernels.
    fs.writeFileSync(int8ModelPath(cacheDir, ROOT, "esrgan-slim", 2, bits), "not an onnx model");
    const broken = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 1,
      workerData: { root: ROOT, cacheDir, threads: 1, device: "cpu" },
    });
    const captured = captureStdout();
    try {
      const up = createUpscaler(broken);
      const int8: ModelRef = { kind: "package", pkg: "esrgan-slim", scale: 2, precision: "int8" };
      const info = await up.describe(int8);
      assert.deepEqual([info.precision, info.label], ["fp32", "esrgan-slim-x2"]);
      const img = await resizeLanczos(photos.get("astronaut.png")!, 48, 40);
      const out = await up.upscale(int8, img, { signal });
      assert.deepEqual(out.data, await run({ ...int8, precision: "fp32" }, img), "the fp32 model's output");
      assert.equal(broken.stats.crashed, 0);
      await new Promise((r) => setTimeout(r, 100)); // the worker's stdout arrives asynchronously
      const line = captured.lines.find((l) => l.includes("int8 enhance model unavailable"));
      assert.ok(line, "one log line says so");
      assert.match(line, /"level":"warn".*"model":"esrgan-slim-x2"/);
    } finally {
      captured.restore();
      await broken.close();
    }
  });
});

/** Where the flat areas are in the held-out photos: the astronaut's face (skin), the rocket's sky. */
const FLAT_AREAS: Record<string, [number, number]> = { "astronaut.png": [60, 30], "rocket.png": [0, 0] };

/** fp32 | int8 crops of a flat area, at 2× zoom so banding would show. */
async function sideBySide(
  a: Uint8Array,
  b: Uint8Array,
  width: number,
  height: number,
  [x0, y0]: [number, number],
): Promise<Buffer> {
  const side = Math.min(160, width - x0, height - y0);
  const crop = (data: Uint8Array) =>
    sharp(Buffer.from(data), { raw: { width, height, channels: 3 } })
      .extract({ left: x0, top: y0, width: side, height: side })
      .resize(side * 2, side * 2, { kernel: "nearest" })
      .png()
      .toBuffer();
  const [left, right] = await Promise.all([crop(a), crop(b)]);
  return sharp({ create: { width: side * 4 + 8, height: side * 2, channels: 3, background: "#fff" } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right, left: side * 2 + 8, top: 0 },
    ])
    .png()
    .toBuffer();
}

async function stack(pngs: Buffer[]): Promise<Buffer> {
  const metas = await Promise.all(pngs.map((p) => sharp(p).metadata()));
  const width = Math.max(...metas.map((m) => m.width ?? 0));
  let top = 0;
  const layers = pngs.map((input, i) => {
    const layer = { input, left: 0, top };
    top += (metas[i].height ?? 0) + 8;
    return layer;
  });
  return sharp({ create: { width, height: top, channels: 3, background: "#fff" } })
    .composite(layers)
    .png()
    .toBuffer();
}
