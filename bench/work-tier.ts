// `npm run bench -- --work-tier-only`: what the BullMQ work tier adds to a synchronous request. Two servers on the
// preview engine side by side, one inline (the default) and one with WORK_TIER=bullmq and a worker process on a real
// redis-server; interleaved rounds of POST /api/generate, p50 and p99. The inline server uses the same Redis as its
// store, so the difference is the tier's own: the job record, the queue, the worker's pick-up and the wait for its end.
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import sharp from "sharp";
import { type App, createKey, ROOT, startApp, tempDataDir } from "../tests/helpers/app";
import { call, enhance } from "../tests/helpers/http";
import { startRedisServer } from "../tests/helpers/redis-server";
import type { Table } from "./neural";

const percentile = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
const fmt = (n: number, d = 1) => n.toFixed(d);

/** A worker process (worker.ts); resolves once it is ready. */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 120_000;
  while (!/ready as/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

export async function benchWorkTier(rounds = Number(process.env.BENCH_TIER_ROUNDS ?? 40)): Promise<Table> {
  const redis = await startRedisServer();
  const apps: App[] = [];
  let worker: ChildProcess | undefined;
  try {
    const shared = {
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: "10000",
      KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
      PRO_REQUESTS_PER_DAY: "100000",
    };
    const dataDir = tempDataDir("bench-tier");
    const tierEnv = { ...shared, WORK_TIER: "bullmq", DATA_DIR: dataDir };
    const inline = await startApp({ name: "bench-tier-inline", env: shared });
    apps.push(inline);
    const tier = await startApp({ name: "bench-tier-bullmq", dataDir, env: tierEnv });
    apps.push(tier);
    worker = await startWorker(tierEnv);
    const variants = { inline, tier };
    type Name = keyof typeof variants;
    const keys = { inline: (await createKey(inline)).key, tier: (await createKey(tier)).key };
    const times: Record<Name, number[]> = { inline: [], tier: [] };
    // alpha-schnell renders 1024×1024 on the preview engine; the same seed makes every image the same work.
    const body = JSON.stringify({ prompt: "a lighthouse on a cliff at dusk", model: "alpha-schnell", seed: 11 });
    const once = async (name: Name) => {
      const t = performance.now();
      const res = await call(variants[name].url, "/api/generate", {
        method: "POST",
        headers: { Authorization: `Bearer ${keys[name]}`, "Content-Type": "application/json" },
        body,
      });
      if (res.status !== 200) throw new Error(`bench generate failed: ${res.status} ${res.text.slice(0, 200)}`);
      return performance.now() - t;
    };
    for (const name of ["inline", "tier", "inline", "tier"] as const) await once(name); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 ? (["tier", "inline"] as const) : (["inline", "tier"] as const)) {
        times[name].push(await once(name));
      }
    }
    const p = (name: Name, q: number) => percentile(times[name], q);
    return {
      head: ["Work tier (preview engine, 1024², sync)", "p50 ms", "p99 ms", "added p50 ms", "added p99 ms"],
      rows: [
        ["POST /api/generate inline (baseline)", fmt(p("inline", 50)), fmt(p("inline", 99)), "0", "0"],
        [
          "POST /api/generate through BullMQ and one worker",
          fmt(p("tier", 50)),
          fmt(p("tier", 99)),
          fmt(p("tier", 50) - p("inline", 50)),
          fmt(p("tier", 99) - p("inline", 99)),
        ],
      ],
      notes: [
        `${rounds} interleaved rounds after a warm-up, one request at a time; p99 of ${rounds} is their slowest.`,
        "Both servers keep their store in the same redis-server; the worker runs on this machine, so the tier row",
        "adds loopback round trips and the worker's pick-up, not a network's.",
      ],
    };
  } finally {
    if (worker?.pid && worker.exitCode === null) process.kill(-worker.pid, "SIGTERM");
    await Promise.all(apps.map((a) => a.stop()));
    await redis.close();
  }
}

/**
 * `--work-tier-only`, second table: enhancement throughput on the tier with one worker against two, each worker's
 * threads fixed (ENHANCE_WORKERS=1, two jobs at once), in alternating rounds of `batch` concurrent sync requests.
 */
export async function benchEnhanceWorkers(
  rounds = Number(process.env.BENCH_TIER_ENHANCE_ROUNDS ?? 2),
  batch = 8,
): Promise<Table> {
  const redis = await startRedisServer();
  let app: App | undefined;
  const running: ChildProcess[] = [];
  try {
    const dataDir = tempDataDir("bench-tier-enhance");
    const env = {
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: "10000",
      KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
      PRO_REQUESTS_PER_DAY: "100000",
      WORK_TIER: "bullmq",
      DATA_DIR: dataDir,
      ENHANCE_WORKERS: "1",
      WORKER_CONCURRENCY: "2",
      // One key sends the whole batch: its cap must not be what is measured.
      WORKER_KEY_CAP: "64",
    };
    app = await startApp({ name: "bench-tier-enhance", dataDir, env });
    const { key } = await createKey(app);
    running.push(await startWorker(env));
    const photo = await sharp({ create: { width: 512, height: 512, channels: 3, background: "#3a6" } })
      .composite([
        { input: Buffer.from('<svg width="512" height="512"><circle cx="256" cy="256" r="180" fill="#c42"/></svg>') },
      ])
      .jpeg({ quality: 90 })
      .toBuffer();
    const url = app.url;
    const one = async () => {
      const res = await enhance(
        url,
        { image: { data: photo, type: "image/jpeg", name: "p.jpg" }, strength: "0.6", scale: "2" },
        { headers: { Authorization: `Bearer ${key}` } },
      );
      if (res.status !== 200) throw new Error(`bench enhance failed: ${res.status} ${res.text.slice(0, 200)}`);
    };
    const batchSeconds = async () => {
      const t = performance.now();
      await Promise.all(Array.from({ length: batch }, one));
      return (performance.now() - t) / 1000;
    };
    await one(); // warm-up: the network's session on the first worker
    const seconds: Record<"one" | "two", number[]> = { one: [], two: [] };
    for (let r = 0; r < rounds; r++) {
      seconds.one.push(await batchSeconds());
      running.push(await startWorker(env));
      await one(); // the second worker's session
      seconds.two.push(await batchSeconds());
      const second = running.pop();
      if (second?.pid) process.kill(-second.pid, "SIGTERM");
      await new Promise((resolve) => second?.once("exit", resolve));
    }
    const rate = (s: number[]) => (batch * s.length) / s.reduce((a, b) => a + b, 0);
    return {
      head: ["Work tier enhancement (512² → 1024², fast)", "jobs/s", "against one worker"],
      rows: [
        ["one worker, 1 thread", fmt(rate(seconds.one), 2), "1.00×"],
        ["two workers, 1 thread each", fmt(rate(seconds.two), 2), `${fmt(rate(seconds.two) / rate(seconds.one), 2)}×`],
      ],
      notes: [
        `${rounds} alternating rounds of ${batch} concurrent synchronous requests from one Pro key, after a warm-up.`,
        "Workers run on this machine's cores beside the web instance and Redis: two cores bound the second worker.",
      ],
    };
  } finally {
    for (const w of running) if (w.pid && w.exitCode === null) process.kill(-w.pid, "SIGTERM");
    await app?.stop();
    await redis.close();
  }
}
