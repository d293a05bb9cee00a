// `npx tsx scripts/convert-models.ts [dir]`: converts the embedded ESRGAN models ahead of time (default DATA_DIR/models).
import path from "node:path";
import { ensureConvertedModel, type PackageName } from "../lib/enhance/neural/package-models";

const root = path.resolve(__dirname, "..");
const dir = path.resolve(process.argv[2] ?? path.join(process.env.DATA_DIR ?? ".data", "models"));
for (const pkg of ["esrgan-slim", "esrgan-medium"] satisfies PackageName[]) {
  for (const scale of [2, 4]) {
    const t = performance.now();
    const file = ensureConvertedModel(dir, root, pkg, scale);
    console.log(`${path.relative(process.cwd(), file)} (${(performance.now() - t).toFixed(0)} ms)`);
  }
}
