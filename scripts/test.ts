// `npm test`: unit, API (against the real built app) and end-to-end (Chromium) tests, each file in its own node:test
// process, several files at once. Most API and e2e files spend their time waiting on servers, leases and timers, so
// running TEST_JOBS of them side by side shortens the run; each file's output is printed whole when it ends.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuild } from "../lib/ops/build";

const ROOT = path.resolve(__dirname, "..");
const SUITES = ["unit", "api", "e2e"] as const;
/** Last run's time per file, so the longest start first and the run ends on short files. */
const TIMES_FILE = path.join(ROOT, ".test-data", "durations.json");
/** A file that says so in its first lines runs alone, after the others: it measures time or memory. */
const ALONE_MARK = "@test-alone";
/**
 * The longest one file may run before it is stopped and counted failed: a file that hangs (a server that never
 * stops, a client that never closes) must not hold the whole run. The slowest file takes about 4 minutes alone.
 */
const FILE_DEADLINE_MS = Number(process.env.TEST_FILE_DEADLINE_MS) || 20 * 60_000;
/** Before any run has been timed: browser and API files take longest, unit files least. */
const FIRST_RUN_ESTIMATE_MS: Record<string, number> = { e2e: 90_000, api: 60_000, unit: 10_000 };

type Counts = { tests: number; pass: number; fail: number; skipped: number };
type FileRun = { file: string; code: number | null; ms: number; output: string; counts: Counts; timedOut: boolean };

function testFiles(suite: string): string[] {
  const dir = path.join(ROOT, "tests", suite);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts"))
    .sort()
    .map((f) => path.join("tests", suite, f));
}

function readTimes(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(TIMES_FILE, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

function writeTimes(runs: FileRun[]) {
  const times = { ...readTimes(), ...Object.fromEntries(runs.map((r) => [r.file, Math.round(r.ms)])) };
  fs.mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
  fs.writeFileSync(TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`);
}

function runsAlone(file: string): boolean {
  return fs.readFileSync(path.join(ROOT, file), "utf8").slice(0, 2000).includes(ALONE_MARK);
}

/** The closing counts node:test's spec reporter prints (`ℹ pass 12`). */
function countsOf(output: string): Counts {
  const read = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, "m").exec(output)?.[1] ?? 0);
  return { tests: read("tests"), pass: read("pass"), fail: read("fail"), skipped: read("skipped") };
}

/**
 * Each file's processes carry a token in their environment (servers, workers and redis-servers a test starts inherit
 * it, whatever process group they make), so whatever a file leaves running when it ends, or when it is stopped, is
 * found and stopped too: a file that crashed or hung never leaves a server behind for the rest of the run.
 */
const TOKEN_VARIABLE = "DARKROOM_TEST_TOKEN";
/** The tokens of the files running now, stopped with the run when it is interrupted. */
const running = new Set<string>();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const token of running) stopTagged(token, "SIGKILL");
    process.exit(130);
  });
}

function runFile(file: string): Promise<FileRun> {
  const started = performance.now();
  const token = crypto.randomUUID();
  running.add(token);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", file], {
      cwd: ROOT,
      env: { ...process.env, [TOKEN_VARIABLE]: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      chunks.push(
        Buffer.from(`\n✖ ${file} ran past its deadline of ${Math.round(FILE_DEADLINE_MS / 1000)} s and was stopped\n`),
      );
      // A moment to run its own teardown, then everything it started.
      stopTagged(token, "SIGTERM");
      setTimeout(() => stopTagged(token, "SIGKILL"), 10_000).unref();
    }, FILE_DEADLINE_MS);
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("close", (code) => {
      clearTimeout(deadline);
      running.delete(token);
      stopTagged(token, "SIGKILL");
      const output = Buffer.concat(chunks).toString("utf8");
      resolve({ file, code, ms: performance.now() - started, output, counts: countsOf(output), timedOut });
    });
  });
}

/** Sends `signal` to every process of this user whose environment carries `token`. */
function stopTagged(token: string, signal: NodeJS.Signals) {
  if (!fs.existsSync("/proc")) return; // not Linux: nothing to look through
  const mark = Buffer.from(`${TOKEN_VARIABLE}=${token}\0`);
  for (const entry of fs.readdirSync("/proc", { withFileTypes: true })) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`).includes(mark)) process.kill(pid, signal);
    } catch {
      // Gone already, or not ours to read.
    }
  }
}

function report(run: FileRun) {
  const verdict = run.timedOut ? "FAILED (past its deadline)" : run.code === 0 ? "ok" : `FAILED (exit ${run.code})`;
  process.stdout.write(`\n━━ ${run.file}: ${verdict}, ${(run.ms / 1000).toFixed(1)} s\n${run.output}`);
}

/** Runs files `jobs` at a time, longest first; prints each file's output as it ends. */
async function runPool(files: string[], jobs: number): Promise<FileRun[]> {
  const times = readTimes();
  const estimate = (file: string) => times[file] ?? FIRST_RUN_ESTIMATE_MS[file.split(path.sep)[1]] ?? 60_000;
  const queue = [...files].sort((a, b) => estimate(b) - estimate(a));
  const runs: FileRun[] = [];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const run = await runFile(file);
      report(run);
      runs.push(run);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  return runs;
}

function summarise(runs: FileRun[], wallMs: number): boolean {
  const broken = runs.filter((r) => r.code !== 0);
  const total = runs.reduce(
    (sum, r) => ({
      tests: sum.tests + r.counts.tests,
      pass: sum.pass + r.counts.pass,
      // A file that failed without a failing test (it crashed, or a hook threw) counts as one failure.
      fail: sum.fail + Math.max(r.counts.fail, r.code === 0 ? 0 : 1),
      skipped: sum.skipped + r.counts.skipped,
    }),
    { tests: 0, pass: 0, fail: 0, skipped: 0 },
  );
  // The failed files' output again, last, where a reader of the log's tail finds it.
  for (const r of broken) process.stdout.write(`\n━━ again, failed: ${r.file}\n${failuresOf(r.output)}`);
  const slowest = [...runs].sort((a, b) => b.ms - a.ms).slice(0, 8);
  console.log(`\nSlowest files: ${slowest.map((r) => `${r.file} ${(r.ms / 1000).toFixed(0)} s`).join(", ")}`);
  console.log(`${runs.length} files in ${(wallMs / 1000).toFixed(0)} s`);
  for (const r of broken) console.log(`✖ ${r.file} (exit ${r.code})`);
  console.log(`${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`);
  return broken.length === 0 && total.fail === 0 && total.tests > 0;
}

/** A failed file's failing tests with their messages and stacks, or its whole output when none is marked. */
function failuresOf(output: string): string {
  const lines = output.split("\n");
  const start = lines.findIndex((l) => /^✖ failing tests:/.test(l));
  const text = start >= 0 ? lines.slice(start).join("\n") : output;
  return text.length > 12_000 ? `…${text.slice(-12_000)}` : text;
}

async function main() {
  const args = process.argv.slice(2);
  const wanted = args.filter((a) => (SUITES as readonly string[]).includes(a));
  const named = args.filter((a) => a.endsWith(".test.ts"));
  const suites = wanted.length > 0 ? wanted : [...SUITES];
  const files = named.length > 0 ? named : suites.flatMap(testFiles);
  if (files.length === 0) {
    console.error("no test files found");
    process.exit(1);
  }
  const jobs = Math.max(1, Number(process.env.TEST_JOBS) || Math.min(3, os.availableParallelism() + 1));

  process.env.NEXT_TELEMETRY_DISABLED = "1";
  if (files.some((f) => !f.startsWith(path.join("tests", "unit")))) ensureBuild(ROOT);

  const started = performance.now();
  const alone = files.filter(runsAlone);
  const runs = await runPool(
    files.filter((f) => !alone.includes(f)),
    jobs,
  );
  runs.push(...(await runPool(alone, 1)));
  writeTimes(runs);
  process.exit(summarise(runs, performance.now() - started) ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
