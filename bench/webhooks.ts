// Webhook fairness in `npm run bench`: how long another key's webhook takes from its job's end to its receiver,
// idle and while one key has 48 webhooks hanging on a receiver that never answers, side by side in one run.
import { createKey, startApp } from "../tests/helpers/app";
import { call, generate } from "../tests/helpers/http";
import { type Receiver, startReceiver, startSink } from "../tests/helpers/webhook-receivers";
import type { Table } from "./neural";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchWebhooks(rounds = 5): Promise<Table> {
  const app = await startApp({
    name: "bench-webhooks",
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
      const deadline = Date.now() + 180_000;
      while (r.got.length === before) {
        if (Date.now() > deadline) throw new Error("the other key's webhook never came");
        await sleep(20);
      }
      const record = await call(statusUrl, "", { headers: other });
      return r.got[before].at - Date.parse(record.json.finished_at);
    };

    const idle: number[] = [];
    for (let i = 0; i < rounds; i++) idle.push(await delay(receiver, `bench idle ${i}`));
    for (let i = 0; i < 48; i++) await submit(flooder, sink.url, `bench flood ${i}`);
    while (sink.stats.total < 2) await sleep(50);
    const loaded: number[] = [];
    for (let i = 0; i < rounds; i++) loaded.push(await delay(receiver, `bench flooded ${i}`));

    const p50 = (v: number[]) => percentile(v, 50);
    const ms = (v: number[]) => `p50 ${p50(v).toFixed(0)} ms · max ${Math.max(...v).toFixed(0)} ms`;
    return {
      head: ["another key's webhook (job end → receiver)", "delay", "ratio"],
      rows: [
        ["idle", ms(idle), "1.00×"],
        [
          "48 of one key hanging on a receiver that never answers",
          ms(loaded),
          `${(p50(loaded) / Math.max(1, p50(idle))).toFixed(2)}×`,
        ],
      ],
      notes: [
        `${rounds} webhooks each, one run; the hanging host got ${sink.stats.total} connections, at most ${sink.stats.maxOpen} at once (cap 2 per key and per host, breaker after 5 timeouts).`,
        "Before fair claims (1.1) the loaded delay was 51.8 s against 0.1 s idle: 48 first attempts held all 8 slots for 10 s each.",
      ],
    };
  } finally {
    await sink.close();
    await receiver.close();
    await app.stop();
  }
}
