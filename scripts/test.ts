// `npm test`: one node:test run over unit, API (against the real built app) and end-to-end (Chromium) tests.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureBuild } from "../lib/ops/build";

const ROOT = path.resolve(__dirname, "..");
const SUITES = ["unit", "api", "e2e"] as const;

function testFiles(suite: string): string[] {
  const dir = path.join(ROOT, "tests", suite);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts"))
    .sort()
    .map((f) => path.join("tests", suite, f));
}

const wanted = process.argv.slice(2).filter((a) => (SUITES as readonly string[]).includes(a));
const suites = wanted.length > 0 ? wanted : [...SUITES];
const files = suites.flatMap(testFiles);
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}

process.env.NEXT_TELEMETRY_DISABLED = "1";
if (suites.some((s) => s !== "unit")) ensureBuild(ROOT);

const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=1", "--test-reporter=spec", ...files],
  { cwd: ROOT, stdio: "inherit", env: process.env },
);
process.exit(result.status ?? 1);
