// The whole project type-checks under strict TypeScript (the production build skips this to start faster).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { it } from "node:test";

it("tsc --noEmit passes", () => {
  const root = path.resolve(__dirname, "../..");
  const res = spawnSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc", { paths: [root] }), "--noEmit", "-p", root],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
});
