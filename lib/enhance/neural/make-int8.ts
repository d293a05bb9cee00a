// Makes an int8 model in a short-lived child process, so that calibration's peak (every activation of every
// calibration tile, and the allocator's pages that outlive it) is given back to the system when the child exits
// instead of staying in the server's RSS. Calibrating inside a worker thread raised a fresh server to 1.9 GB.
// Worker-side code (loaded by tsx outside Next's bundle), so relative imports only.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureInt8Model, int8ModelPath } from "./calibrate";
import type { PackageName } from "./package-models";

export type Int8Request = {
  cacheDir: string;
  root: string;
  pkg: PackageName;
  scale: number;
  threads: number;
  bits: 7 | 8;
  weightType: "int8" | "uint8";
};

/** Long enough for the quality model on two loaded cores; a child past it is killed and fp32 serves instead. */
const CHILD_TIMEOUT_MS = 15 * 60_000;
/** A lock older than this was left by a process that died while making the model. */
const STALE_LOCK_MS = CHILD_TIMEOUT_MS + 60_000;

/**
 * The int8 model's file, made by a child process if it is not there yet. The workers of one server (and servers
 * sharing a DATA_DIR) take turns through a lock directory, so two calibrations never run at once.
 */
export async function ensureInt8ModelApart(req: Int8Request): Promise<string> {
  const file = int8ModelPath(req.cacheDir, req.root, req.pkg, req.scale, req.bits, req.weightType);
  fs.mkdirSync(/*turbopackIgnore: true*/ req.cacheDir, { recursive: true });
  const lock = `${file}.lock`;
  for (;;) {
    if (fs.existsSync(/*turbopackIgnore: true*/ file)) return file;
    if (takeLock(lock)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  try {
    if (fs.existsSync(/*turbopackIgnore: true*/ file)) return file;
    await runChild(req);
    if (!fs.existsSync(/*turbopackIgnore: true*/ file)) throw new Error(`the int8 child did not write ${file}`);
    return file;
  } finally {
    fs.rmSync(/*turbopackIgnore: true*/ lock, { recursive: true, force: true });
  }
}

function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(/*turbopackIgnore: true*/ lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const age = Date.now() - (fs.statSync(/*turbopackIgnore: true*/ lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > STALE_LOCK_MS) fs.rmSync(/*turbopackIgnore: true*/ lock, { recursive: true, force: true });
    return false;
  }
}

function runChild(req: Int8Request): Promise<void> {
  const script = path.join(/*turbopackIgnore: true*/ req.root, "lib", "enhance", "neural", "int8-child.cjs");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, JSON.stringify(req)],
      { cwd: req.root, timeout: CHILD_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
      (err, _stdout, stderr) =>
        err ? reject(new Error(`making the int8 model failed: ${stderr || err.message}`)) : resolve(),
    );
  });
}

// Run as the child (int8-child.cjs): argv[2] is the request.
if (process.argv[1]?.endsWith("int8-child.cjs")) {
  const req = JSON.parse(process.argv[2] ?? "{}") as Int8Request;
  import("onnxruntime-node")
    .then((ort) => ensureInt8Model(ort, req))
    .then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
        process.exit(1);
      },
    );
}
