// Domain code takes plain arguments and throws domain errors: it never imports the HTTP layer or Next.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { it } from "node:test";

const ROOT = path.resolve(__dirname, "../..");
const DOMAIN = [
  "lib/engines",
  "lib/enhance",
  "lib/metrics",
  "lib/ops/readiness.ts",
  "lib/status.ts",
  "lib/store",
  "lib/storage",
  "lib/webhooks",
  "lib/work",
];
const FORBIDDEN = /^(@\/lib\/api(\/|$)|next(\/|$)|\.\.\/api\/)/;

function sourcesUnder(rel: string): string[] {
  const full = path.join(ROOT, rel);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [rel];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourcesUnder(path.join(rel, e.name)) : [path.join(rel, e.name)]))
    .filter((f) => /\.(ts|tsx|cjs|js)$/.test(f));
}

it("keeps the domain (engines, enhance, metrics, readiness, status, store, storage, webhooks, work) free of HTTP imports", () => {
  const files = DOMAIN.flatMap(sourcesUnder);
  assert.ok(files.length > 40, `found only ${files.length} domain files`);
  const offenders: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    for (const m of text.matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)) {
      if (FORBIDDEN.test(m[1])) offenders.push(`${file} imports ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
