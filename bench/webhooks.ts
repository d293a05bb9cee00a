// Webhook fairness in `npm run bench`: how long another key's webhook takes from its job's end to its receiver,
// idle and while one key has 48 webhooks hanging on a receiver that never answers, on the current tree and on 1.1
// (before fair claims; the baseline checkout of bench/baseline.ts), side by side in one run.
import { execFileSync } from "node:child_process";
import { createKey, ROOT, startApp } from "../tests/helpers/app";
import { call, generate } from "../tests/helpers/http";
import { type Receiver, startReceiver, startSink } from "../tests/helpers/webhook-receivers";
import { BASELINE_COMMIT, baselineCheckout } from "./baseline";
import type { Table } from "./neural";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FLOOD = 48;

type Figures = { idle: number[]; loaded: number[]; connections: number; maxOpen: number };

/** Both delays on the app built from `root`: `rounds` webhooks idle, then `loadedRounds` with the flood hanging. */
async function measure(root: string, rounds: number, loadedRounds: number): Promise<Figures> {
  const app = await startApp({
    name: "bench-webhooks",
    root,
    env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1,127.0.0.2", GENERATE_CONCURRENCY: "8", GENERATE_QUEUE: "100" },
  });
  const receiver = await startReceiver("127.0.0.1");
  const sink = await startSink("127.0.0.2");
  try {
    const auth = async (label: string) => ({ Authorization: `Bearer ${(await createKey(app, label)).key}` });
    const other = await auth("bench-other");
    const flooder = await auth("bench-flooder");
    const submit = async (headers: Record<string, string>, url: string, prompt: string) => {
      const r = await generate(app.url, { prompt, webhook_url: url }, { headers });
      if (r.status !== 202) throw new Error(`webhook job refused: ${r.status} ${r.text}`);
      return r.json.status_url as string;
    };
    /** Ms from the other key's job ending to its webhook arriving. */
    const delay = async (r: Receiver, prompt: string) => {
      const before = r.got.length;
      const statusUrl = await submit(other, r.url, prompt);
      const deadline = Date.now() + 300_000;
      while (r.got.length === before) {
        if (Date.now() > deadline) throw new Error("the other key's webhook never came");
        await sleep(20);
      }
      const record = await call(statusUrl, "", { headers: other });
      return r.got[before].at - Date.parse(record.json.finished_at);
    };

    const idle: number[] = [];
    for (let i = 0; i < rounds; i++) idle.push(await delay(receiver, `bench idle ${i}`));
    for (let i = 0; i < FLOOD; i++) await submit(flooder, sink.url, `bench flood ${i}`);
    while (sink.stats.total < 2) await sleep(50);
    const loaded: number[] = [];
    for (let i = 0; i < loadedRounds; i++) loaded.push(await delay(receiver, `bench flooded ${i}`));
    return { idle, loaded, connections: sink.stats.total, maxOpen: sink.stats.maxOpen };
  } finally {
    await sink.close();
    await receiver.close();
    await app.stop();
  }
}

export async function benchWebhooks(rounds = 5): Promise<Table> {
  const p50 = (v: number[]) => percentile(v, 50);
  const ms = (v: number[]) =>
    p50(v) >= 1000 ? `p50 ${(p50(v) / 1000).toFixed(1)} s (${v.length})` : `p50 ${p50(v).toFixed(0)} ms (${v.length})`;
  const ratio = (f: Figures) => `${(p50(f.loaded) / Math.max(1, p50(f.idle))).toFixed(1)}×`;
  const table: Table = {
    head: ["another key's webhook (job end → receiver)", "idle", `${FLOOD} of one key hanging`, "ratio"],
    rows: [],
    notes: [],
  };
  const now = await measure(ROOT, rounds, rounds);
  table.rows.push(["now (fair claims, breaker)", ms(now.idle), ms(now.loaded), ratio(now)]);
  table.notes.push(
    `now: the hanging host got ${now.connections} connections, at most ${now.maxOpen} at once (cap 2 per key and host).`,
  );
  const root = baselineCheckout();
  if (!root) {
    table.notes.push(`1.1 skipped: commit ${BASELINE_COMMIT} is not in this clone (a shallow clone?)`);
    return table;
  }
  // Built before its server starts (a first build passes startApp's deadline). Its webhooks wait tens of seconds
  // under the flood, so it gets one loaded round.
  execFileSync("npx", ["tsx", "scripts/build.ts"], { cwd: root, stdio: "inherit" });
  const old = await measure(root, rounds, 1);
  table.rows.push([`1.1 (${BASELINE_COMMIT}, 8 slots first come)`, ms(old.idle), ms(old.loaded), ratio(old)]);
  table.notes.push(
    `1.1: the hanging host got ${old.connections} connections, at most ${old.maxOpen} at once.`,
    `With the flood, now against 1.1: ${(p50(now.loaded) / Math.max(1, p50(old.loaded))).toFixed(4)}× the delay.`,
  );
  return table;
}
