// The image's runtime stage must hold every file the build hash reads (lib/ops/build.ts): a file left out gives
// another hash at start, so the server would look for a build that is not there.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { SOURCE_DIRS, SOURCE_FILES } from "@/lib/ops/build";

const ROOT = path.resolve(__dirname, "../..");

it("copies every hashed source file and folder into the runtime stage", () => {
  const dockerfile = fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8").replace(/\\\n/g, " ");
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const copied = new Set(
    [...runtime.matchAll(/^COPY --from=build (.+)$/gm)].flatMap((m) =>
      m[1]
        .trim()
        .split(/\s+/)
        .slice(0, -1)
        .map((src) => path.posix.relative("/app", src)),
    ),
  );
  const missing = [...SOURCE_FILES, ...SOURCE_DIRS].filter((f) => fs.existsSync(path.join(ROOT, f)) && !copied.has(f));
  assert.deepEqual(missing, []);
});
