// The build lock (lib/ops/build.ts): a process that waits for another's build stops waiting when that builder dies
// without removing its lock, instead of waiting forever.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { BUILDS_DIR, distDirFor, ensureBuild, hashSources } from "@/lib/ops/build";

describe("the build lock", () => {
  it("stops waiting for a builder that died holding the lock, and uses the build it left complete", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-build-lock-"));
    try {
      fs.mkdirSync(path.join(root, "lib"));
      fs.writeFileSync(path.join(root, "lib", "a.ts"), "export const a = 1;\n");
      const dist = distDirFor(hashSources(root));
      const lock = path.join(root, BUILDS_DIR, ".lock");
      // A builder that finishes its build, then dies before it removes its lock. Started in the background of a
      // shell that exits at once, so that once it ends it is reaped by init, not left a zombie of this process.
      const pid = execFileSync(
        "sh",
        ["-c", `(sleep 1; mkdir -p '${dist}'; echo '{}' > '${dist}/darkroom-complete.json') >/dev/null 2>&1 & echo $!`],
        { cwd: root, encoding: "utf8" },
      ).trim();
      fs.mkdirSync(lock, { recursive: true });
      fs.writeFileSync(path.join(lock, "pid"), pid);
      const said: string[] = [];
      const started = Date.now();
      assert.equal(ensureBuild(root, { log: (msg) => said.push(msg) }), dist);
      assert.ok(Date.now() - started < 60_000);
      assert.deepEqual(said, ["darkroom: another process is building; waiting…"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
