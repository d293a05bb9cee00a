// The per-request cost of observability: two identical servers, one with metrics scraped and traces exported
// (METRICS_TOKEN set and scraped every second, OTEL_EXPORTER_OTLP_ENDPOINT at a loopback OTLP receiver) and one
// with neither, in interleaved rounds. Figures are throughput and the server's own CPU time per request.
import fs from "node:fs";
import autocannon from "autocannon";
import { type App, createKey, startApp } from "../tests/helpers/app";
import { startOtlpReceiver } from "../tests/helpers/otlp-receiver";
import { findServerPid } from "./neural";

type Result = { requests: { average: number; total: number }; non2xx: number };
type Case = { name: string; path: string; method: "GET" | "POST"; body?: unknown; connections: number };

function cannon(url: string, key: string, c: Case, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${c.path}`,
        method: c.method,
        connections: c.connections,
        duration: seconds,
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
      },
      (err, result) => (err ? reject(err) : resolve(result as unknown as Result)),
    );
  });
}

function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const TOKEN = "bench-metrics-token-0123456789";

type Side = { app: App; key: string; pid: number; rps: number[]; cpu: number[] };

export async function benchOps(rounds = 5, seconds = 6): Promise<string[][]> {
  const receiver = await startOtlpReceiver();
  const env = { PRO_REQUESTS_PER_DAY: "100000000", GENERATE_QUEUE: "1000", STATUS_CALLS_PER_MINUTE: "100000000" };
  const off = await startApp({ name: "bench-ops-off", env });
  const on = await startApp({
    name: "bench-ops-on",
    env: { ...env, METRICS_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  });
  // A scraper, as Prometheus would be, once a second.
  const scrape = setInterval(() => {
    // A scrape cut short when the server stops at the end is no matter.
    void fetch(`${on.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }, 1000);
  const rows: string[][] = [];
  try {
    const sides: Side[] = [];
    for (const app of [off, on]) {
      const { key } = await createKey(app, "bench-ops");
      sides.push({ app, key, pid: findServerPid(app.port), rps: [], cpu: [] });
    }
    const cases: Case[] = [
      {
        name: "POST /api/generate (preview 1024², Pro)",
        path: "/api/generate",
        method: "POST",
        connections: 4,
        body: { prompt: "a lighthouse" },
      },
      { name: "GET /api/status (Pro)", path: "/api/status", method: "GET", connections: 16 },
    ];
    for (const c of cases) {
      for (const s of sides) {
        s.rps = [];
        s.cpu = [];
        await cannon(s.app.url, s.key, c, 2); // warm-up
      }
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const s of order) {
          const before = cpuMsOf(s.pid);
          const r = await cannon(s.app.url, s.key, c, seconds);
          if (r.non2xx > 0) throw new Error(`${c.name}: ${r.non2xx} answers were not 200`);
          s.rps.push(r.requests.average);
          s.cpu.push((cpuMsOf(s.pid) - before) / r.requests.total);
        }
        ratios.push(sides[1].rps[round] / sides[0].rps[round]);
        cpuRatios.push(sides[0].cpu[round] / sides[1].cpu[round]);
      }
      const [without, withOps] = sides;
      rows.push([
        `${c.name}, metrics and tracing off`,
        `${fmt(median(without.rps))} req/s`,
        `server CPU ${fmt(median(without.cpu) * 1000, 0)} µs/req`,
        "1.00×",
      ]);
      rows.push([
        `${c.name}, scraped + traced over OTLP`,
        `${fmt(median(withOps.rps))} req/s`,
        `server CPU ${fmt(median(withOps.cpu) * 1000, 0)} µs/req`,
        `${fmt(median(ratios), 3)}× throughput, ${fmt(median(cpuRatios), 3)}× by server CPU`,
      ]);
    }
    const traces = new Set(receiver.spans.map((s) => s.traceId)).size;
    rows.push([
      "spans received by the OTLP receiver",
      `${receiver.spans.length} spans`,
      `${traces} traces`,
      traces > 0 ? "exported" : "NONE EXPORTED",
    ]);
  } finally {
    clearInterval(scrape);
    await on.stop();
    await off.stop();
    await receiver.close();
  }
  return rows;
}
