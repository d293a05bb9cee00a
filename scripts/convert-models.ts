// `npx tsx scripts/convert-models.ts [dir]`: converts every enhance mode's model ahead of time (default DATA_DIR/models),
// and quantizes the ones this CPU runs in int8 by default (or all of them with ENHANCE_PRECISION=int8).
import os from "node:os";
import path from "node:path";
import * as ort from "onnxruntime-node";
import { ENHANCE_PACKAGES } from "../lib/catalog/enhance-modes";
import { ensureInt8Model } from "../lib/enhance/neural/calibrate";
import { ensureConvertedModel } from "../lib/enhance/neural/package-models";
import { choosePrecision, int8WeightBits } from "../lib/enhance/precision";
import { ENHANCE_SCALES } from "../lib/schemas/enhance-rules";

const root = path.resolve(__dirname, "..");
const dir = path.resolve(process.argv[2] ?? path.join(process.env.DATA_DIR ?? ".data", "models"));
const configured = process.env.ENHANCE_PRECISION === "int8" || process.env.ENHANCE_PRECISION === "fp32";

async function main() {
  for (const pkg of ENHANCE_PACKAGES) {
    for (const scale of ENHANCE_SCALES) {
      let t = performance.now();
      const file = ensureConvertedModel(dir, root, pkg, scale);
      console.log(`${path.relative(process.cwd(), file)} (${(performance.now() - t).toFixed(0)} ms)`);
      const precision = choosePrecision(
        pkg,
        scale,
        int8WeightBits(),
        configured ? (process.env.ENHANCE_PRECISION as "int8" | "fp32") : undefined,
      );
      if (precision !== "int8") continue;
      t = performance.now();
      const q = await ensureInt8Model(ort, { cacheDir: dir, root, pkg, scale, threads: os.availableParallelism() });
      console.log(`${path.relative(process.cwd(), q)} (${(performance.now() - t).toFixed(0)} ms)`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
