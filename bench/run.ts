// `npm run bench`: figures measured side by side in one run, printed as ratios against a baseline (neural part in neural.ts).

import autocannon from "autocannon";
import sharp from "sharp";
import { ensureBuild } from "../lib/ops/build";
import { type App, createKey, ROOT, startApp } from "../tests/helpers/app";
import { enhance, generate } from "../tests/helpers/http";
import { pngOf } from "../tests/helpers/images";
import { benchAgainstBaseline } from "./baseline";
import { benchEnhanceRoutes } from "./enhance-routes";
import { benchEvents } from "./events";
import { benchQuotaBeforeCost } from "./hardening";
import { benchImageInput } from "./image-input";
import { benchImages } from "./images";
import { benchJobs } from "./jobs";
import { benchLocalEngines } from "./local-engines";
import {
  BENCH_ENHANCE_TIMEOUT_MS,
  benchConcurrentUploads,
  benchLargeOutputs,
  benchMemory,
  benchProfile,
  benchPsnr,
  benchSpeed,
  benchTileSizes,
  findServerPid,
  serveReference,
  type Table,
} from "./neural";
import { benchOpenAI } from "./openai";
import { benchOps } from "./ops";
import { benchStorage } from "./storage";
import { benchUploadAttack } from "./upload-attack";
import { benchUsageRecording, cpuMsOf } from "./usage-recording";
import { benchWebhooks } from "./webhooks";
import { benchEnhanceWorkers, benchWorkTier } from "./work-tier";

type Cannon = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
};

function runCannon(url: string, headers: Record<string, string>, seconds: number): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 16, duration: seconds, headers }, (err, result) =>
      err ? reject(err) : resolve(result as Cannon),
    );
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const median = (values: number[]) => percentile(values, 50);
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function timeEach(n: number, fn: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

function printTable(t: Table) {
  const widths = t.head.map((h, c) => Math.max(h.length, ...t.rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: string[]) => `| ${t.head.map((_, c) => (cells[c] ?? "").padEnd(widths[c])).join(" | ")} |`;
  console.log(`\n${line(t.head)}`);
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of t.rows) console.log(line(r));
  for (const n of t.notes) console.log(`  ${n}`);
}

/** `npm run bench -- --api-only` skips the neural engine's sections (minutes of CPU) for a quick API run. */
const apiOnly = process.argv.includes("--api-only");
function printRows(rows: string[][]) {
  const head = ["measurement", "throughput", "latency", "ratio"];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => `| ${cells.map((x, c) => x.padEnd(widths[c])).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}

/** `npm run bench -- --usage-only`: just the usage history's cost, which needs two servers of its own. */
async function mainUsageOnly() {
  printRows(await benchUsageRecording(Number(process.env.BENCH_ROUNDS ?? 5)));
}

/** `npm run bench -- --ops-only`: just the cost of metrics and tracing, which needs two servers of its own. */
async function mainOpsOnly() {
  printRows(await benchOps(Number(process.env.BENCH_ROUNDS ?? 5)));
}

/** `npm run bench -- --image-input-only`: just what an image input and extra images cost on the path. */
async function mainImageInputOnly() {
  printTable(await benchImageInput());
}

/** `npm run bench -- --openai-only`: just what the OpenAI-compatible /v1 shape costs over /api. */
async function mainOpenAIOnly() {
  printTable(await benchOpenAI());
}

/** `npm run bench -- --storage-only`: generate and /cdn on S3 storage (a real Swift s3api) against local files. */
async function mainStorageOnly() {
  printTable(await benchStorage());
}

/** `npm run bench -- --work-tier-only`: a sync request through the BullMQ work tier against inline. */
async function mainWorkTierOnly() {
  await tableOf("work tier", () => benchWorkTier());
  await tableOf("work tier enhancement", () => benchEnhanceWorkers());
}

/** `npm run bench -- --baseline-only`: the current tree against 1.1 before the store re-cut, side by side. */
async function mainBaselineOnly() {
  printTable(await benchAgainstBaseline(Number(process.env.BENCH_ROUNDS ?? 5)));
}

/** `npm run bench -- --events-only`: just the event streams' store reads and delays. */
async function mainEventsOnly() {
  printTable(await benchEvents());
}

/** `npm run bench -- --upload-attack-only`: a legit enhance during a slow-upload attack, against none. */
async function mainUploadAttackOnly() {
  printRows(await benchUploadAttack(Number(process.env.BENCH_ROUNDS ?? 4)));
}

/** `npm run bench -- --webhooks-only`: another key's webhook delay, idle and with 48 hanging on one receiver. */
async function mainWebhooksOnly() {
  printTable(await benchWebhooks(Number(process.env.BENCH_ROUNDS ?? 5)));
}

/** `npm run bench -- --enhance-routes-only`: Darkroom's added time over a remote enhance route, against a direct call. */
async function mainEnhanceRoutesOnly() {
  printTable(await benchEnhanceRoutes());
}

/** `npm run bench -- --images-only`: just the image library's sweep and record figures. */
async function mainImagesOnly() {
  printTable(await benchImages());
}

const authFor = async (a: Parameters<typeof createKey>[0]) => ({
  Authorization: `Bearer ${(await createKey(a, "bench")).key}`,
});

/**
 * `npm run bench -- --neural-speed-only`: the neural speed table (fp32 and int8 servers), the request profile and
 * the tile-size candidates.
 */
async function mainNeuralSpeedOnly() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  await tableOf("neural speed", () => benchSpeed(authFor, rounds));
  await tableOf("neural request profile", () => benchProfile(rounds));
  await tableOf("neural tile sizes", () => benchTileSizes(rounds));
}

/** `npm run bench -- --memory-only`: the neural engine's memory on fresh servers (small and large uploads). */
async function mainMemoryOnly() {
  await tableOf("neural memory", () => benchMemory(authFor));
  await tableOf("concurrent large uploads", () => benchConcurrentUploads(authFor));
}

/** `npm run bench -- --psnr-only`: the neural engine's quality against lanczos3 at strengths 0, 0.5 and 1. */
async function mainPsnrOnly() {
  const env = { PRO_REQUESTS_PER_DAY: "100000000", ENHANCE_TIMEOUT_MS: BENCH_ENHANCE_TIMEOUT_MS };
  const app = await startApp({ name: "bench-psnr", env });
  try {
    await tableOf("neural quality (PSNR)", async () => benchPsnr(app, await authFor(app)));
  } finally {
    await app.stop();
  }
}

/** What failed, one line per section: printed at the end, and the bench exits non-zero if any. */
const failures: string[] = [];

/**
 * Runs one section. A failure is printed at once and noted in the section's place, and the bench goes on to the
 * next section, so one broken section never hides the others' figures.
 */
async function section<T>(name: string, run: () => Promise<T>, inPlace: (note: string) => T): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } catch (err) {
    const note = `${name}: failed: ${err instanceof Error ? err.message : String(err)}`;
    console.error(`\n${note}`, err instanceof Error ? `\n${err.stack}` : "");
    failures.push(note);
    return inPlace(note);
  } finally {
    console.log(`\n── ${name}: ${fmt((performance.now() - started) / 1000, 0)} s`);
  }
}

/**
 * A section's figures are printed as soon as it ends, so a long run's log holds every finished section even if the
 * run is cut short; the whole bench prints them all again, together, at its end.
 */
const rowsOf = async (name: string, run: () => Promise<string[][]>) => {
  const rows = await section(name, run, (note) => [[name, "—", note, "—"]]);
  printRows(rows);
  return rows;
};
const tableOf = async (name: string, run: () => Promise<Table>) => {
  const table = await section(name, run, (note) => ({ head: [name], rows: [], notes: [note] }));
  printTable(table);
  return table;
};

/** The sections on the one shared server: /api/status, generate, enhance, quota before cost, jobs, then neural. */
async function sharedServerSections(rows: string[][], neuralTables: Table[], rounds: number) {
  const app = await startApp({
    name: "bench",
    env: {
      STATUS_CALLS_PER_MINUTE: "100000000",
      PRO_REQUESTS_PER_DAY: "100000000",
      GENERATE_QUEUE: "1000",
      ENHANCE_TIMEOUT_MS: BENCH_ENHANCE_TIMEOUT_MS,
    },
  });
  try {
    const { key } = await createKey(app, "bench");
    const auth = { Authorization: `Bearer ${key}` };
    rows.push(...(await rowsOf("GET /api/status against the bare route", () => benchStatus(app, auth))));
    rows.push(...(await rowsOf("POST /api/generate (preview)", () => benchGenerate(app, auth))));
    rows.push(...(await rowsOf("POST /api/enhance against sharp", () => benchEnhance(app, auth))));
    // Quota before cost: an exhausted caller's 9 MB upload.
    rows.push(...(await rowsOf("quota before cost", () => benchQuotaBeforeCost(app))));
    // Async jobs: the 202 against a sync call, and state change → event stream.
    rows.push(...(await rowsOf("async jobs", () => benchJobs(app, auth))));
    // 4. The neural engine: speed against the tfjs-wasm reference, quality (PSNR), then memory on a fresh server.
    if (!apiOnly) {
      neuralTables.push(await tableOf("neural speed", () => benchSpeed(authFor, rounds)));
      neuralTables.push(await tableOf("neural request profile", () => benchProfile(rounds)));
      neuralTables.push(await tableOf("neural tile sizes", () => benchTileSizes(rounds)));
      neuralTables.push(await tableOf("neural quality (PSNR)", () => benchPsnr(app, auth)));
    }
  } finally {
    await app.stop();
  }
}

// 1. /api/status vs the bare static route, interleaved rounds so drift hits both alike. autocannon shares the
// two cores with the server, so the server's own CPU time per request is printed too: it is the steadier figure.
async function benchStatus(app: App, auth: Record<string, string>): Promise<string[][]> {
  const serverPid = findServerPid(app.port);
  const bare: Cannon[] = [];
  const status: Cannon[] = [];
  const cpu = { bare: [] as number[], status: [] as number[] };
  await runCannon(`${app.url}/api/health`, {}, 2); // warm-up
  await runCannon(`${app.url}/api/status`, auth, 2);
  for (let round = 0; round < 5; round++) {
    for (const [list, cpuList, url, headers] of [
      [bare, cpu.bare, `${app.url}/api/health`, {}],
      [status, cpu.status, `${app.url}/api/status`, auth],
    ] as const) {
      const before = cpuMsOf(serverPid);
      const result = await runCannon(url, headers, 4);
      list.push(result);
      cpuList.push((cpuMsOf(serverPid) - before) / result.requests.total);
    }
  }
  for (const r of status)
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`status bench saw ${r.non2xx} non-2xx, ${r.errors} errors`);
  const bareRps = median(bare.map((r) => r.requests.average));
  const statusRps = median(status.map((r) => r.requests.average));
  const roundRatio = median(status.map((r, i) => r.requests.average / bare[i].requests.average));
  const cpuRatio = median(cpu.bare) / median(cpu.status);
  return [
    [
      "GET /api/health (bare static route, floor)",
      `${fmt(bareRps, 0)} req/s`,
      `p50 ${median(bare.map((r) => r.latency.p50))} ms · p99 ${median(bare.map((r) => r.latency.p99))} ms · server CPU ${fmt(median(cpu.bare) * 1000, 0)} µs/req`,
      "1.00×",
    ],
    [
      "GET /api/status (Pro key, SQLite)",
      `${fmt(statusRps, 0)} req/s`,
      `p50 ${median(status.map((r) => r.latency.p50))} ms · p99 ${median(status.map((r) => r.latency.p99))} ms · server CPU ${fmt(median(cpu.status) * 1000, 0)} µs/req`,
      `${fmt(roundRatio, 2)}× throughput, ${fmt(cpuRatio, 2)}× by server CPU (target ≥ 0.80×)`,
    ],
  ];
}

// 2. Generate on the preview engine at 1024×1024, against rendering alone in this process.
async function benchGenerate(app: App, auth: Record<string, string>): Promise<string[][]> {
  for (let i = 0; i < 3; i++) await generate(app.url, { prompt: `warm up ${i}` }, { headers: auth });
  const prompts = [
    "a lighthouse on a cliff at sunset",
    "snowy mountain village at night",
    "neon city street in the rain",
    "forest river in the morning",
  ];
  const styles = ["Photorealistic", "Cinematic", "Anime", "Illustration"];
  let i = 0;
  const gen = await timeEach(40, async () => {
    const res = await generate(
      app.url,
      { prompt: prompts[i % 4], style: styles[i++ % 4], ratio: "1:1" },
      { headers: auth },
    );
    if (res.status !== 200 || res.json.width !== 1024) throw new Error(`generate failed: ${res.status} ${res.text}`);
  });
  return [
    [
      "POST /api/generate (preview, 1024×1024)",
      `${fmt(1000 / median(gen))} img/s`,
      `p50 ${fmt(median(gen))} ms · p99 ${fmt(percentile(gen, 99))} ms`,
      `target p50 ≤ 150 ms`,
    ],
  ];
}

// 3. Enhance 512² → 1024², against a bare sharp lanczos3 resize of the same image in this process.
async function benchEnhance(app: App, auth: Record<string, string>): Promise<string[][]> {
  const photo = await pngOf(512, 512);
  const direct = await timeEach(10, async () => {
    await sharp(photo).resize(1024, 1024, { kernel: "lanczos3" }).png({ compressionLevel: 6 }).toBuffer();
  });
  // One untimed call first: the server's first enhancement converts the model and opens its sessions.
  const enh = await timeEach(11, async () => {
    const res = await enhance(
      app.url,
      { image: { data: photo, type: "image/png" }, strength: "0.5" },
      { headers: auth },
    );
    if (res.status !== 200 || res.json.enhanced_size !== "1024x1024")
      throw new Error(`enhance failed: ${res.status} ${res.text}`);
  });
  enh.shift();
  return [
    [
      "sharp lanczos3 512²→1024² + PNG (in-process floor)",
      `${fmt(1000 / median(direct))} img/s`,
      `p50 ${fmt(median(direct))} ms`,
      "1.00×",
    ],
    [
      "POST /api/enhance 512²→1024² (neural fast, strength 0.5)",
      `${fmt(1000 / median(enh))} img/s`,
      `p50 ${fmt(median(enh))} ms · p99 ${fmt(percentile(enh, 99))} ms`,
      `${fmt(median(enh) / median(direct), 2)}× the floor's time`,
    ],
  ];
}

async function main() {
  const neuralTables: Table[] = [];
  const rows: string[][] = [];
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  await section(
    "the shared server",
    () => sharedServerSections(rows, neuralTables, rounds),
    (note) => {
      rows.push(["the shared server", "—", note, "—"]);
    },
  );
  // 5. Large outputs and the event loop, in this process once the server is gone; then memory on fresh servers.
  if (!apiOnly) {
    neuralTables.push(await tableOf("large outputs", () => benchLargeOutputs(Math.min(rounds, 2))));
    neuralTables.push(await tableOf("neural memory", () => benchMemory(authFor)));
    neuralTables.push(await tableOf("concurrent large uploads", () => benchConcurrentUploads(authFor)));
  }
  neuralTables.push(await tableOf("local engines", () => benchLocalEngines()));
  // 6. The usage history's cost on the hot path, on two fresh servers (recording on and off).
  rows.push(...(await rowsOf("usage recording", () => benchUsageRecording(rounds))));
  // 6a. A legit enhance during a slow-upload attack against none, on a fresh server.
  rows.push(...(await rowsOf("slow-upload attack", () => benchUploadAttack(rounds + 1))));
  // 6b. Metrics scraped and traces exported against neither, on two fresh servers.
  rows.push(...(await rowsOf("metrics and tracing", () => benchOps(rounds))));
  // 7. The image library: the retention sweep and the record written with each image.
  neuralTables.push(await tableOf("image library", () => benchImages()));
  // 8. Event streams: store reads against the number of viewers.
  neuralTables.push(await tableOf("event streams", () => benchEvents()));
  // 9. Image input (image-to-image, inpainting) against text only, and n = 4 against n = 1, on one fake engine.
  neuralTables.push(await tableOf("image input", () => benchImageInput()));
  // 10. The current tree against 1.1 before the store re-cut, on SQLite and on Upstash.
  neuralTables.push(await tableOf("against 1.1", () => benchAgainstBaseline(rounds)));
  // 11. Webhook fairness: another key's webhook, idle and while one key's 48 hang on a receiver that never answers.
  neuralTables.push(await tableOf("webhook fairness", () => benchWebhooks()));
  // 12. The OpenAI-compatible /v1 against /api, and b64_json against url, on the preview engine.
  neuralTables.push(await tableOf("OpenAI-compatible /v1", () => benchOpenAI()));
  // 13. A remote enhance route through /api/enhance against calling the provider's fake directly.
  neuralTables.push(await tableOf("remote enhance route", () => benchEnhanceRoutes()));
  // 14. The BullMQ work tier: a sync request against inline, and enhancement on one worker against two.
  neuralTables.push(await tableOf("work tier", () => benchWorkTier()));
  neuralTables.push(await tableOf("work tier enhancement", () => benchEnhanceWorkers()));
  // 15. Images on S3-compatible storage (a real Swift s3api) against local files.
  neuralTables.push(await tableOf("S3 storage", () => benchStorage()));

  console.log(
    `\nDarkroom bench · ${new Date().toISOString()} · node ${process.version} · ${require("node:os").cpus().length} cores\n`,
  );
  printRows(rows);
  for (const t of neuralTables) printTable(t);
}

// The tfjs-wasm reference runs in a child process of this script, so it never shares a process with the server.
// The first flag given picks the section; none runs the whole bench.
const SECTIONS: [flag: string, run: () => Promise<void>][] = [
  ["--reference-child", serveReference],
  ["--usage-only", mainUsageOnly],
  ["--images-only", mainImagesOnly],
  ["--events-only", mainEventsOnly],
  ["--neural-speed-only", mainNeuralSpeedOnly],
  ["--memory-only", mainMemoryOnly],
  ["--psnr-only", mainPsnrOnly],
  ["--ops-only", mainOpsOnly],
  ["--image-input-only", mainImageInputOnly],
  ["--baseline-only", mainBaselineOnly],
  ["--upload-attack-only", mainUploadAttackOnly],
  ["--webhooks-only", mainWebhooksOnly],
  ["--openai-only", mainOpenAIOnly],
  ["--storage-only", mainStorageOnly],
  ["--work-tier-only", mainWorkTierOnly],
  ["--enhance-routes-only", mainEnhanceRoutesOnly],
];
const run = SECTIONS.find(([flag]) => process.argv.includes(flag))?.[1] ?? main;
// The app is built once before any section starts a server, with no deadline: on a fresh clone the first build takes
// minutes, longer than a server's start may (the reference child starts none).
if (run === serveReference) serveReference();
else benchSections();

function benchSections() {
  ensureBuild(ROOT, { log: (msg) => console.log(msg) });
  section(process.argv.find((a) => a.endsWith("-only")) ?? "the bench", run, () => undefined).then(() => {
    if (failures.length === 0) return;
    console.error(`\n${failures.length} section(s) failed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
    process.exitCode = 1;
  });
}
