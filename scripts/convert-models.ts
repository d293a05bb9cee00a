// `npx tsx scripts/convert-models.ts [dir]`: converts every enhance mode's model ahead of time (default DATA_DIR/models).
import path from "node:path";
import { ENHANCE_PACKAGES } from "../lib/catalog/enhance-modes";
import { ensureConvertedModel } from "../lib/enhance/neural/package-models";
import { ENHANCE_SCALES } from "../lib/schemas/enhance-rules";

const root = path.resolve(__dirname, "..");
const dir = path.resolve(process.argv[2] ?? path.join(process.env.DATA_DIR ?? ".data", "models"));
for (const pkg of ENHANCE_PACKAGES) {
  for (const scale of ENHANCE_SCALES) {
    const t = performance.now();
    const file = ensureConvertedModel(dir, root, pkg, scale);
    console.log(`${path.relative(process.cwd(), file)} (${(performance.now() - t).toFixed(0)} ms)`);
  }
}
