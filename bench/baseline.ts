// The store re-cut (issue 18) must not cost anything: this runs 1.1 as it landed, before the re-cut, beside the
// current tree, on the same store kind, and drives both with the same requests in interleaved rounds, so drift and
// other load hit both alike. The figures are ratios, current against 1.1 (or BENCH_BASELINE).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { type App, createKey, ROOT, startApp } from "../tests/helpers/app";
import { startBackends } from "../tests/helpers/backends";
import type { Table } from "./neural";
import { findServerPid } from "./neural";
import { cpuMsOf } from "./usage-recording";

/**
 * The last commit on main before the store re-cut was merged: 1.1 with its docs moved, nothing else. BENCH_BASELINE
 * names another (the tree before a later move, say) to compare against instead.
 */
export const BASELINE_COMMIT = process.env.BENCH_BASELINE ?? "4935af3";
const BASELINE_LABEL = process.env.BENCH_BASELINE ? BASELINE_COMMIT : `1.1 (${BASELINE_COMMIT})`;

type Cannon = { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number };

/** What both servers are driven with: one path each, with its own connections. */
const CASES = [
  { name: "GET /api/status (Pro)", method: "GET", path: "/api/status", body: undefined, connections: 16 },
  {
    name: "POST /api/generate (preview 1024², Pro)",
    method: "POST",
    path: "/api/generate",
    body: { prompt: "a lighthouse on a cliff at sunset" },
    connections: 4,
  },
  {
    name: "POST /api/generate refused (400, Pro)",
    method: "POST",
    path: "/api/generate",
    body: { prompt: "" },
    connections: 16,
  },
] as const;

/** The store kinds both releases share: the embedded SQLite file, and Upstash REST with Blob. */
const STORES = [
  { name: "SQLite", backends: false },
  { name: "Upstash + Blob", backends: true },
] as const;

function cannon(base: string, key: string, c: (typeof CASES)[number], seconds: number): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${base}${c.path}`,
        method: c.method,
        connections: c.connections,
        duration: seconds,
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: c.body ? JSON.stringify(c.body) : undefined,
      },
      (err, result) => (err ? reject(err) : resolve(result as unknown as Cannon)),
    );
  });
}

/** The baseline's sources, extracted once from git into a temp folder that keeps its build between runs. */
export function baselineCheckout(): string | undefined {
  const dir = path.join(os.tmpdir(), `darkroom-baseline-${BASELINE_COMMIT}`);
  if (fs.existsSync(path.join(dir, "server.ts"))) return dir;
  try {
    execFileSync("git", ["cat-file", "-e", `${BASELINE_COMMIT}^{commit}`], { cwd: ROOT, stdio: "ignore" });
  } catch {
    return undefined; // not a git clone, or a shallow one without the commit
  }
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${BASELINE_COMMIT} | tar -x -C "${dir}"`], { cwd: ROOT });
  // Hard links, not a symlink: the build refuses a node_modules that points outside its project.
  execFileSync("cp", ["-al", path.join(ROOT, "node_modules"), path.join(dir, "node_modules")]);
  return dir;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, digits = 2) => n.toFixed(digits);

type Side = { app: App; key: string; pid: number };

export async function benchAgainstBaseline(rounds = 5, seconds = 4): Promise<Table> {
  const table: Table = {
    head: [
      "path",
      "store",
      `${BASELINE_LABEL} req/s`,
      "now req/s",
      "throughput, now / then",
      "server CPU per request, now / then",
    ],
    rows: [],
    notes: [],
  };
  const root = baselineCheckout();
  if (!root) {
    table.notes.push(`skipped: commit ${BASELINE_COMMIT} is not in this clone (a shallow clone?)`);
    return table;
  }
  // Build both first, each from its own sources (a first build passes startApp's deadline), before any store
  // bridge runs in this process: a blocking spawn then would deadlock against it.
  for (const dir of [root, ROOT]) execFileSync("npx", ["tsx", "scripts/build.ts"], { cwd: dir, stdio: "inherit" });
  for (const store of STORES) {
    const backends = store.backends ? [await startBackends(), await startBackends()] : [];
    const env = { PRO_REQUESTS_PER_DAY: "100000000", STATUS_CALLS_PER_MINUTE: "100000000", GENERATE_QUEUE: "1000" };
    const apps: App[] = [];
    try {
      apps.push(await startApp({ name: "bench-base-old", root, env: { ...env, ...backends[0]?.env } }));
      apps.push(await startApp({ name: "bench-base-new", env: { ...env, ...backends[1]?.env } }));
      const sides: Side[] = [];
      for (const app of apps)
        sides.push({ app, key: (await createKey(app, "bench")).key, pid: findServerPid(app.port) });
      for (const c of CASES) {
        for (const s of sides) await cannon(s.app.url, s.key, c, 2); // warm-up
        const rps: number[][] = [[], []];
        const cpu: number[][] = [[], []];
        for (let round = 0; round < rounds; round++) {
          // Alternate who goes first, so neither side always runs right after the other's burst.
          const order = round % 2 === 0 ? [0, 1] : [1, 0];
          for (const i of order) {
            const before = cpuMsOf(sides[i].pid);
            const r = await cannon(sides[i].app.url, sides[i].key, c, seconds);
            const okStatus = c.body?.prompt === "" ? r.non2xx === r.requests.total : r.non2xx === 0;
            if (!okStatus) throw new Error(`${c.name} on ${store.name}: unexpected statuses (${r.non2xx} non-2xx)`);
            rps[i].push(r.requests.average);
            cpu[i].push((cpuMsOf(sides[i].pid) - before) / r.requests.total);
          }
        }
        const ratio = median(rps[1].map((x, k) => x / rps[0][k]));
        table.rows.push([
          c.name,
          store.name,
          fmt(median(rps[0]), 0),
          fmt(median(rps[1]), 0),
          `${fmt(ratio)}×`,
          `${fmt(median(cpu[1]) / median(cpu[0]))}×`,
        ]);
      }
    } finally {
      for (const app of apps) await app.stop();
      for (const b of backends) await b.close();
    }
  }
  table.notes.push(
    `medians of ${rounds} interleaved rounds of ${seconds} s per side; a throughput ratio ≥ 1 and a CPU ratio ≤ 1 mean no regression`,
  );
  return table;
}
