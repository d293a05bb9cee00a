// The int8 models are made in a child process (make-int8.ts), so calibration's peak never stays in the server's RSS:
// on a fresh data folder, calibrating inside a worker thread raised the server to 1.9 GB (issue 33, item 10).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { int8ModelPath } from "@/lib/enhance/neural/calibrate";
import { ensureInt8ModelApart, type Int8Request } from "@/lib/enhance/neural/make-int8";
import { int8WeightBits } from "@/lib/enhance/precision";

const ROOT = path.resolve(__dirname, "../..");

/** This process's peak resident set (VmHWM), in MB. */
const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1]) / 1024;

describe("making an int8 model apart", () => {
  let tmp: string;
  let req: Int8Request;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-int8-apart-"));
    req = {
      cacheDir: path.join(tmp, "models"),
      root: ROOT,
      pkg: "esrgan-medium",
      scale: 2,
      threads: 1,
      bits: int8WeightBits(),
      weightType: "int8",
    };
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("calibrates in a child: racing callers get one file, and this process's peak stays where it was", async () => {
    const before = peakRssMb();
    const files = await Promise.all([ensureInt8ModelApart(req), ensureInt8ModelApart(req)]);
    const grown = peakRssMb() - before;
    const expected = int8ModelPath(req.cacheDir, ROOT, req.pkg, req.scale, req.bits, req.weightType);
    assert.deepEqual(files, [expected, expected]);
    assert.ok(fs.statSync(expected).size > 100_000, "a whole model was written");
    // No lock and no temp file left behind.
    assert.deepEqual(fs.readdirSync(req.cacheDir), [path.basename(expected)]);
    // Calibrating the medium model in-process holds every activation of a calibration tile at once (hundreds of MB).
    assert.ok(grown < 64, `the caller's peak RSS grew by ${grown.toFixed(0)} MB while the model was made`);
  });

  it("reports a child that fails, leaving no lock behind", async () => {
    // A root with the model packages but without the child's script: the child exits 1 at once.
    const root = path.join(tmp, "root-without-code");
    fs.mkdirSync(root);
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
    const bad = { ...req, cacheDir: path.join(tmp, "bad"), root };
    await assert.rejects(ensureInt8ModelApart(bad), /making the int8 model failed/);
    assert.deepEqual(fs.readdirSync(bad.cacheDir), []);
  });
});
