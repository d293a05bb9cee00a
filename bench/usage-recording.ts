// The hot-path cost of the usage history: POST /api/generate throughput with recording on against an identical
// server with it off (USAGE_HISTORY_DAYS=0), in interleaved rounds, plus the cheapest recorded request (a refused
// one, where recording is the largest share of the work). Also checks the history counted every 200 exactly.
import fs from "node:fs";
import autocannon from "autocannon";
import { type App, createKey, startApp } from "../tests/helpers/app";
import { call } from "../tests/helpers/http";
import { findServerPid } from "./neural";

type Result = { requests: { average: number; total: number }; latency: { p50: number }; "2xx": number; non2xx: number };

function cannon(url: string, key: string, body: unknown, connections: number, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/api/generate`,
        method: "POST",
        connections,
        duration: seconds,
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      },
      (err, result) => (err ? reject(err) : resolve(result as unknown as Result)),
    );
  });
}

/** User + system CPU time of a process so far, in ms (Linux /proc; clock ticks are 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, digits = 1) => n.toFixed(digits);

type Side = { app: App; key: string; pid: number; rps: number[]; cpu: number[]; ok: number };

export async function benchUsageRecording(rounds = 5, seconds = 6): Promise<string[][]> {
  const env = { PRO_REQUESTS_PER_DAY: "100000000", GENERATE_QUEUE: "1000" };
  const on = await startApp({ name: "bench-usage-on", env });
  const off = await startApp({ name: "bench-usage-off", env: { ...env, USAGE_HISTORY_DAYS: "0" } });
  const rows: string[][] = [];
  try {
    const sides: Side[] = [];
    for (const app of [on, off]) {
      const { key } = await createKey(app, "bench-usage");
      sides.push({ app, key, pid: findServerPid(app.port), rps: [], cpu: [], ok: 0 });
    }
    const cases = [
      { name: "POST /api/generate (preview 1024², Pro)", body: { prompt: "a lighthouse on a cliff" }, connections: 4 },
      { name: "POST /api/generate refused (400, Pro)", body: { prompt: "" }, connections: 16 },
    ];
    for (const c of cases) {
      for (const s of sides) {
        s.rps = [];
        s.cpu = [];
        await cannon(s.app.url, s.key, c.body, c.connections, 2); // warm-up
      }
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate which side goes first, so drift over the run hits both alike.
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        const got = new Map<Side, { rps: number; cpu: number }>();
        for (const s of order) {
          const before = cpuMsOf(s.pid);
          const r = await cannon(s.app.url, s.key, c.body, c.connections, seconds);
          if (c.body.prompt && r.non2xx > 0) throw new Error(`${c.name}: ${r.non2xx} answers were not 200`);
          const cpu = (cpuMsOf(s.pid) - before) / r.requests.total;
          got.set(s, { rps: r.requests.average, cpu });
          s.rps.push(r.requests.average);
          s.cpu.push(cpu);
        }
        const [a, b] = [got.get(sides[0]), got.get(sides[1])];
        if (a && b) {
          ratios.push(a.rps / b.rps);
          cpuRatios.push(b.cpu / a.cpu);
        }
      }
      const [withRec, without] = sides;
      rows.push([
        `${c.name}, usage history off`,
        `${fmt(median(without.rps))} req/s`,
        `server CPU ${fmt(median(without.cpu) * 1000, 0)} µs/req`,
        "1.00×",
      ]);
      rows.push([
        `${c.name}, usage history on`,
        `${fmt(median(withRec.rps))} req/s`,
        `server CPU ${fmt(median(withRec.cpu) * 1000, 0)} µs/req`,
        `${fmt(median(ratios), 3)}× throughput, ${fmt(median(cpuRatios), 3)}× by server CPU ${
          c.body.prompt ? "(target ≥ 0.95×)" : "(the bound: nothing else to do, no target)"
        }`,
      ]);
    }

    // Exactness under load: the history's count of today's generations for the key equals the 200s served.
    const usage = await call(on.url, "/api/usage?days=1", { headers: { Authorization: `Bearer ${sides[0].key}` } });
    const status = await call(on.url, "/api/status", { headers: { Authorization: `Bearer ${sides[0].key}` } });
    const recorded = usage.json.days[0].generate as number;
    const served = status.json.usage_today as number;
    rows.push([
      "usage history under that load",
      `${recorded} recorded`,
      `${served} units counted by the quota`,
      recorded === served ? "exact" : `MISMATCH (${recorded - served})`,
    ]);
  } finally {
    await on.stop();
    await off.stop();
  }
  return rows;
}
