// The embedded models: converts @upscalerjs packages' layers models to ONNX, cached under DATA_DIR/models.
// Worker-side code (loaded by tsx outside Next's bundle), so relative imports only.
import fs from "node:fs";
import path from "node:path";
import type { EnhancePackage } from "../../catalog/enhance-modes";
import { CONVERTER_VERSION, convertLayersModel, type LayersModelJson } from "./convert-layers";

export type PackageName = EnhancePackage;

/** The package's files, read by path: they are data, and Next's tracer must not follow them. */
export function resolvePackageDir(root: string, pkg: PackageName): string {
  return path.join(/*turbopackIgnore: true*/ root, "node_modules", "@upscalerjs", pkg);
}

export function readPackageVersion(root: string, pkg: PackageName): string {
  const file = path.join(/*turbopackIgnore: true*/ resolvePackageDir(root, pkg), "package.json");
  return (JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ file, "utf8")) as { version: string }).version;
}

/** Converts one packaged model in memory (20–150 ms). The RDN definitions declare input and output range [0, 255]. */
export function convertPackageModel(root: string, pkg: PackageName, scale: number) {
  const dir = path.join(/*turbopackIgnore: true*/ resolvePackageDir(root, pkg), "models", `x${scale}`);
  const json = JSON.parse(
    fs.readFileSync(/*turbopackIgnore: true*/ path.join(dir, "model.json"), "utf8"),
  ) as LayersModelJson;
  const shards = json.weightsManifest.flatMap((g) =>
    g.paths.map((p) => fs.readFileSync(/*turbopackIgnore: true*/ path.join(dir, p))),
  );
  const version = readPackageVersion(root, pkg);
  const result = convertLayersModel(json, shards, {
    inputMax: 255,
    outputMax: 255,
    metadata: { source: `@upscalerjs/${pkg}@${version}/x${scale}`, license: "MIT" },
  });
  if (result.info.scale !== scale) throw new Error(`expected scale ${scale}, the graph has ${result.info.scale}`);
  return result;
}

/** The cache file; the package version is in the name too, so an upgraded package is reconverted. */
export function cachedModelPath(cacheDir: string, root: string, pkg: PackageName, scale: number): string {
  return path.join(
    /*turbopackIgnore: true*/ cacheDir,
    `${pkg}-${readPackageVersion(root, pkg)}-x${scale}-v${CONVERTER_VERSION}.onnx`,
  );
}

/** Converts on first use; several workers or processes may race, so the write is tmp + rename. */
export function ensureConvertedModel(cacheDir: string, root: string, pkg: PackageName, scale: number): string {
  const file = cachedModelPath(cacheDir, root, pkg, scale);
  if (fs.existsSync(/*turbopackIgnore: true*/ file)) return file;
  fs.mkdirSync(/*turbopackIgnore: true*/ cacheDir, { recursive: true });
  const { onnx } = convertPackageModel(root, pkg, scale);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(/*turbopackIgnore: true*/ tmp, onnx);
  fs.renameSync(/*turbopackIgnore: true*/ tmp, file);
  return file;
}
