// The layer rule over the whole tree: domain code never imports the HTTP edge (lib/http) or Next, the flows by
// feature (lib/features) run without the edge, no two folders under lib/ import each other (directly or round a
// longer loop), no file is part of an import circle, and the store's door names no backend.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { functionLengths } from "@/tests/helpers/function-lengths";
import { cyclesOf, fileGraph, sourcesUnder, unitGraph, unitOf } from "@/tests/helpers/import-graph";

const ROOT = path.resolve(__dirname, "../..");
const HTTP_LAYER = "lib/http";
/** What may import the HTTP edge besides the routes: itself, and the features' parsers and answers. */
const MAY_IMPORT_HTTP = new Set([HTTP_LAYER, "lib/features"]);
/** A feature's flow: called by routes, a worker or any other entry point with plain arguments. */
const FLOW = /^lib\/features\/[^/]+\/flow\.ts$/;
/** Names that belong to one store backend, its folder or its client library. */
const BACKEND_NAME = /sqlite|redis|upstash/i;
const NEXT = /^next(\/|$)/;

const files = fileGraph(ROOT, ["lib"]);

/** A function may run to this many lines; split a longer one into named steps. */
const MAX_FUNCTION_LINES = 100;
/** Exempt: generated art, and the layer converter's tables. */
const LONG_BY_NATURE = [/^lib\/engines\/preview\//, /^lib\/enhance\/neural\/convert-layers\.ts$/];
/**
 * Functions still over the limit, by file and name, each to be split into named steps (issue 28). The list only
 * shrinks: a function not on it may not pass the limit.
 */
const STILL_LONG = new Set<string>();

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
      const isFlow = FLOW.test(file);
      if (unitOf(file) !== HTTP_LAYER) {
        const text = fs.readFileSync(path.join(ROOT, file), "utf8");
        for (const m of text.matchAll(/from\s*["']([^"']+)["']/g)) {
          if (NEXT.test(m[1])) offenders.push(`${file} imports ${m[1]}`);
        }
      }
      if (MAY_IMPORT_HTTP.has(unitOf(file)) && !isFlow) continue;
      for (const dep of deps) if (unitOf(dep) === HTTP_LAYER) offenders.push(`${file} imports ${dep}`);
    }
    assert.deepEqual(offenders, []);
  });

  it("lets the MCP tools call the flows without the HTTP edge (only the POST /mcp route sees HTTP)", () => {
    const mcp = [...files.keys()].filter((f) => f.startsWith("lib/features/mcp/"));
    assert.ok(mcp.includes("lib/features/mcp/call.ts"), "the tools' call of the flows is there");
    const offenders: string[] = [];
    for (const file of mcp) {
      for (const dep of files.get(file) ?? []) if (unitOf(dep) === HTTP_LAYER) offenders.push(`${file} imports ${dep}`);
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      if (/\bnew Request\(|@\/app\//.test(text)) offenders.push(`${file} builds a request or calls a route`);
    }
    assert.deepEqual(offenders, []);
  });

  it("has no two folders (or top-level files) under lib/ that import each other, round any loop", () => {
    assert.deepEqual(cyclesOf(unitGraph(files)), []);
  });

  it("has no import circle between files", () => {
    assert.deepEqual(cyclesOf(files), []);
  });

  it("names no backend in a file directly under lib/store/ (the door and the ports' types)", () => {
    const direct = sourcesUnder(ROOT, "lib/store").filter((f) => path.dirname(f) === path.join("lib", "store"));
    assert.ok(direct.includes(path.join("lib", "store", "backend.ts")), "the door is there");
    const offenders: string[] = [];
    for (const file of direct) {
      if (BACKEND_NAME.test(path.basename(file))) offenders.push(file);
      for (const dep of files.get(file) ?? []) if (BACKEND_NAME.test(dep)) offenders.push(`${file} imports ${dep}`);
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(/from\s*["']([^"']+)["']/g)) {
        if (BACKEND_NAME.test(m[1])) offenders.push(`${file} imports ${m[1]}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines outside the exempt files`, () => {
    const offenders: string[] = [];
    for (const root of ["lib", "app", "components", "scripts", "server.ts"]) {
      for (const file of sourcesUnder(ROOT, root)) {
        const rel = file.split(path.sep).join("/");
        if (LONG_BY_NATURE.some((r) => r.test(rel))) continue;
        for (const fn of functionLengths(path.join(ROOT, file))) {
          if (fn.lines > MAX_FUNCTION_LINES && !STILL_LONG.has(`${rel} ${fn.name}`))
            offenders.push(`${rel}:${fn.line} ${fn.name} (${fn.lines} lines)`);
        }
      }
    }
    assert.deepEqual(offenders, []);
  });

  it("measures a function's length in lines, arrows and methods too", () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-lengths-"));
    try {
      const file = path.join(tree, "a.ts");
      const body = Array.from({ length: 120 }, (_, i) => `  const v${i} = ${i};`).join("\n");
      fs.writeFileSync(file, `export function long() {\n${body}\n}\nexport const short = () => 1;\n`);
      const found = functionLengths(file);
      assert.deepEqual(
        found.map((f) => [f.name, f.lines]),
        [
          ["long", 122],
          ["short", 1],
        ],
      );
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
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
