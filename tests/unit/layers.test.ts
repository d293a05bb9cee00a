// The layer rule over the whole tree: domain code never imports the HTTP layer (lib/api) or Next, no two folders
// under lib/ import each other (directly or round a longer loop), and no file is part of an import circle.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { cyclesOf, fileGraph, sourcesUnder, unitGraph, unitOf } from "@/tests/helpers/import-graph";

const ROOT = path.resolve(__dirname, "../..");
const HTTP_LAYER = "lib/api";
/** What may import the HTTP layer: itself, the routes and pages, and the composition root's callers. */
const MAY_IMPORT_HTTP = new Set([HTTP_LAYER]);
const NEXT = /^next(\/|$)/;

const files = fileGraph(ROOT, ["lib"]);

/** The source files under `roots` (folders or files) whose text matches `pattern`, sorted. */
function callersOf(pattern: RegExp, roots: string[]): string[] {
  const found: string[] = [];
  for (const root of roots) {
    for (const rel of sourcesUnder(ROOT, root))
      if (pattern.test(fs.readFileSync(path.join(ROOT, rel), "utf8"))) found.push(rel);
  }
  return found.sort();
}

describe("layers", () => {
  it("reads every file under lib/", () => {
    assert.ok(files.size > 180, `found only ${files.size} files`);
    assert.ok(unitGraph(files).size > 20);
  });

  it("keeps every folder under lib/ but the HTTP layer free of HTTP imports and of Next", () => {
    const offenders: string[] = [];
    for (const [file, deps] of files) {
      if (MAY_IMPORT_HTTP.has(unitOf(file))) continue;
      for (const dep of deps) if (unitOf(dep) === HTTP_LAYER) offenders.push(`${file} imports ${dep}`);
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(/from\s*["']([^"']+)["']/g)) {
        if (NEXT.test(m[1])) offenders.push(`${file} imports ${m[1]}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it("has no two folders (or top-level files) under lib/ that import each other, round any loop", () => {
    assert.deepEqual(cyclesOf(unitGraph(files)), []);
  });

  it("has no import circle between files", () => {
    assert.deepEqual(cyclesOf(files), []);
  });

  it("reads the configuration only in the composition root and server.ts", () => {
    const roots = new Set(["lib/config.ts", "lib/services.ts", "server.ts"]);
    const readers = callersOf(/\bgetConfig\(\)/, ["lib", "app", "components", "scripts", "server.ts"]);
    assert.ok(readers.includes("lib/services.ts"), "the root reads it");
    assert.deepEqual(
      readers.filter((f) => !roots.has(f)),
      [],
    );
  });

  it("holds process-wide state only in the composition root, apart from observability", () => {
    // The metrics registry and the tracing switch are process-global like the logger: every module copy reports
    // into the one registry that /metrics serves.
    const allowed = new Set(["lib/services.ts", "lib/singleton.ts", "lib/metrics/index.ts", "lib/metrics/trace.ts"]);
    const holders = callersOf(/\bprocessSingleton\(/, ["lib", "app", "components", "scripts", "server.ts"]);
    assert.deepEqual(
      holders.filter((f) => !allowed.has(f)),
      [],
    );
  });

  it("catches a folder cycle, direct or round three folders, and a file circle", () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-layers-"));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.join(tree, path.dirname(rel)), { recursive: true });
        fs.writeFileSync(path.join(tree, rel), text);
      };
      write("lib/a/one.ts", 'import { two } from "@/lib/b/two";\nexport const one = two;\n');
      write("lib/b/two.ts", "export const two = 2;\n");
      write("lib/b/three.ts", 'import { four } from "@/lib/c/four";\nexport const three = four;\n');
      write("lib/c/four.ts", 'import type { one } from "@/lib/a/one";\nexport const four = 4 as typeof one;\n');
      write("lib/d/x.ts", 'import { y } from "./y";\nexport const x = y;\n');
      write("lib/d/y.ts", 'import { x } from "./x";\nexport const y = () => x;\n');
      const graph = fileGraph(tree, ["lib"]);
      assert.equal(sourcesUnder(tree, "lib").length, 6);
      assert.deepEqual(cyclesOf(unitGraph(graph)), [["lib/a", "lib/b", "lib/c"]]);
      assert.deepEqual(cyclesOf(graph), [["lib/d/x.ts", "lib/d/y.ts"]]);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});
