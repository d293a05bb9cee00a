// `npx tsx scripts/measure-int8.ts`: measures, through the real workers, the PSNR loss of every embedded model in int8
// against fp32 on the held-out photos at strength 1 (the enhanced output), with 8-bit and 7-bit weights, and writes
// lib/enhance/int8-held-out.json, the figures the precision table (lib/enhance/precision.ts) decides by (and the
// network's own loss, for reference). Run it after changing the converter, the
// quantizer or the photos, and commit the file; tests/unit/neural-int8.test.ts re-measures and fails on a stale one.
// `--photos <dir>` measures the photos in <dir> instead, with this CPU's weights, and prints the loss of each
// (nothing is written): an operator's check of int8 on their own material.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ENHANCE_PACKAGES } from "../lib/catalog/enhance-modes";
import { WorkerPool } from "../lib/enhance/neural/pool";
import type { SrWorkerData } from "../lib/enhance/neural/protocol";
import { createUpscaler } from "../lib/enhance/neural/upscale";
import { type HeldOutTable, int8DotProduct, int8WeightBits } from "../lib/enhance/precision";
import { ENHANCE_SCALES } from "../lib/schemas/enhance-rules";
import { loadHeldOut, measureInt8Loss } from "../tests/fixtures/held-out";

const root = path.resolve(__dirname, "..");
const out = path.join(root, "lib/enhance/int8-held-out.json");
const cacheDir = path.resolve(path.join(process.env.DATA_DIR ?? ".data", "models"));

async function measureRow(weights: NonNullable<SrWorkerData["int8Weights"]>, photosDir?: string) {
  const pool = new WorkerPool({
    script: path.join(root, "lib/enhance/neural/worker.cjs"),
    size: 1,
    workerData: {
      root,
      cacheDir,
      threads: os.availableParallelism(),
      device: "cpu",
      maxSessions: 2,
      int8Weights: weights,
    },
  });
  const upscaler = createUpscaler(pool);
  const photos = await loadHeldOut(photosDir);
  const row: Record<string, number> = {};
  const network: Record<string, number> = {};
  try {
    for (const pkg of ENHANCE_PACKAGES)
      for (const scale of ENHANCE_SCALES) {
        const signal = new AbortController().signal;
        const { loss, networkLoss, runs } = await measureInt8Loss(upscaler, pkg, scale, photos, signal);
        if (photosDir)
          for (const r of runs)
            console.log(`  ${r.name}: ${r.loss.toFixed(3)} dB (network alone ${r.networkLoss.toFixed(3)})`);
        row[`${pkg}-x${scale}`] = Number(loss.toFixed(3));
        network[`${pkg}-x${scale}`] = Number(networkLoss.toFixed(3));
        console.log(
          `${weights.bits}-bit ${weights.type} weights, ${pkg} x${scale}: ${loss.toFixed(3)} dB (network alone ${networkLoss.toFixed(3)})`,
        );
      }
  } finally {
    await pool.close();
  }
  type Row = HeldOutTable["loss_db"]["8"];
  return { output: row as Row, network: network as Row };
}

async function main() {
  const at = process.argv.indexOf("--photos");
  if (at !== -1) {
    const dir = process.argv[at + 1];
    if (!dir) throw new Error("usage: npx tsx scripts/measure-int8.ts --photos <dir>");
    await measureRow({ bits: int8WeightBits(), type: "int8" }, path.resolve(dir));
    return;
  }
  // 8-bit int8 weights only give the true figure where the dot product cannot saturate; elsewhere uint8 weights
  // (zero point 128) compute the same integer sums through ONNX Runtime's non-saturating u8u8 kernels.
  const native = int8WeightBits() === 8;
  const w8 = { bits: 8, type: native ? "int8" : "uint8" } as const;
  const eight = await measureRow(w8);
  const seven = await measureRow({ bits: 7, type: "int8" });
  const table: HeldOutTable = {
    written_by: "scripts/measure-int8.ts (do not edit by hand)",
    measured_on: {
      cpu: /model name\s*:\s*(.*)/.exec(fs.readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.arch(),
      int8_dot_product: int8DotProduct() ?? "none (vpmaddubsw, saturating)",
      onnxruntime: JSON.parse(fs.readFileSync(require.resolve("onnxruntime-node/package.json"), "utf8")).version,
      date: new Date().toISOString().slice(0, 10),
      weights: { "8": `${w8.type} weights`, "7": "int8 weights" },
    },
    loss_db: { "8": eight.output, "7": seven.output },
    network_loss_db: { "8": eight.network, "7": seven.network },
  };
  fs.writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
