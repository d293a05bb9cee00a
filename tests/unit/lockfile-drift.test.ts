// check:lockfile's report: what npm would change in package-lock.json, by package path.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { lockfileDrift } from "@/scripts/check-lockfile";

const committed = JSON.parse(fs.readFileSync(path.join(__dirname, "../../package-lock.json"), "utf8"));

describe("lockfileDrift", () => {
  it("finds nothing between a lockfile and itself", () => {
    assert.deepEqual(lockfileDrift(committed, structuredClone(committed)), []);
  });

  it("names a missing platform binary, an added package and a changed version", () => {
    const after = structuredClone(committed);
    const swc = Object.keys(after.packages).find((k) => k.includes("@next/swc-darwin-arm64"));
    assert.ok(swc, "the committed lockfile records macOS's Next compiler");
    const before = structuredClone(after);
    delete before.packages[swc];
    after.packages["node_modules/left-pad"] = { version: "1.3.0" };
    after.packages["node_modules/zod"] = { ...after.packages["node_modules/zod"], version: "0.0.1" };
    assert.deepEqual(lockfileDrift(before, after).sort(), [
      `+ ${swc}`,
      "+ node_modules/left-pad",
      "~ node_modules/zod (version)",
    ]);
  });
});
