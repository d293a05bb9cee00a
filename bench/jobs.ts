// Async jobs in `npm run bench`: how fast a job is accepted (202) against a synchronous generation in the same run,
// and how long a job's state change takes to reach an open event stream.
import type { App } from "../tests/helpers/app";
import { call, generate } from "../tests/helpers/http";
import { readEvents } from "../tests/helpers/sse";

const ASYNC = { Prefer: "respond-async" };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function benchJobs(app: App, auth: Record<string, string>): Promise<string[][]> {
  const sync: number[] = [];
  const accepted: number[] = [];
  const jobs: { id: string; url: string }[] = [];
  // Interleaved, so drift on a shared machine hits both alike.
  for (let i = 0; i < 30; i++) {
    let t = performance.now();
    const s = await generate(app.url, { prompt: `bench sync ${i}` }, { headers: auth });
    sync.push(performance.now() - t);
    if (s.status !== 200) throw new Error(`sync generate failed: ${s.status} ${s.text}`);
    t = performance.now();
    const a = await generate(app.url, { prompt: `bench async ${i}` }, { headers: { ...auth, ...ASYNC } });
    accepted.push(performance.now() - t);
    if (a.status !== 202) throw new Error(`async generate failed: ${a.status} ${a.text}`);
    jobs.push({ id: a.json.id, url: a.json.status_url });
  }

  // A state change (the job finishing) against the moment its terminal event arrives on a stream opened before it.
  const delays: number[] = [];
  for (let i = 0; i < 15; i++) {
    const a = await generate(app.url, { prompt: `bench events ${i}` }, { headers: { ...auth, ...ASYNC } });
    const stream = await readEvents(a.json.events_url, { headers: auth });
    const terminal = stream.events.at(-1);
    const record = await call(a.json.status_url, "", { headers: auth });
    if (terminal?.event !== "succeeded") throw new Error(`no terminal event for ${a.json.id}`);
    delays.push(terminal.at - Date.parse(record.json.finished_at));
  }

  const p50 = (v: number[]) => percentile(v, 50).toFixed(1);
  const p99 = (v: number[]) => percentile(v, 99).toFixed(1);
  return [
    [
      "POST /api/generate, sync (preview, 1024², same run)",
      `${(1000 / percentile(sync, 50)).toFixed(1)} img/s`,
      `p50 ${p50(sync)} ms · p99 ${p99(sync)} ms`,
      "1.00×",
    ],
    [
      "POST /api/generate, Prefer: respond-async → 202",
      `${(1000 / percentile(accepted, 50)).toFixed(1)} jobs/s`,
      `p50 ${p50(accepted)} ms · p99 ${p99(accepted)} ms`,
      `${(percentile(accepted, 50) / percentile(sync, 50)).toFixed(2)}× the sync call's time`,
    ],
    [
      "job finished → its SSE event received",
      "—",
      `p50 ${p50(delays)} ms · p99 ${p99(delays)} ms`,
      "target ≤ 500 ms (the stream polls the store every 250 ms)",
    ],
  ];
}
