// `npm run bench`, OpenAI-compatible part: what the /v1 shape costs over /api on the same pipeline. On the preview
// engine, POST /v1/images/generations against POST /api/generate (p50 and p99), and a 1024² image answered inline
// (b64_json) against as a URL. Interleaved rounds, so machine drift hits every variant alike.
import { createKey, startApp } from "../tests/helpers/app";
import { call } from "../tests/helpers/http";
import type { Table } from "./neural";

const percentile = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
const fmt = (n: number, d = 1) => n.toFixed(d);

export async function benchOpenAI(rounds = Number(process.env.BENCH_OPENAI_ROUNDS ?? 30)): Promise<Table> {
  // One unit per call: room for every round, warm-ups included.
  const app = await startApp({ name: "bench-openai", env: { PRO_REQUESTS_PER_DAY: "100000" } });
  try {
    const auth = { Authorization: `Bearer ${(await createKey(app, "bench-openai")).key}` };
    const post = (path: string, body: unknown) => async () => {
      const t = performance.now();
      const res = await call(app.url, path, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`bench request failed: ${res.status} ${res.text.slice(0, 200)}`);
      return { ms, bytes: res.body.length };
    };
    // alpha-schnell renders 1024×1024 on the preview engine; the same seed makes every image the same work.
    const base = { prompt: "a lighthouse on a cliff at dusk", model: "alpha-schnell", seed: 11 };
    const variants = {
      api: post("/api/generate", base),
      v1url: post("/v1/images/generations", { ...base, response_format: "url" }),
      v1b64: post("/v1/images/generations", { ...base, response_format: "b64_json" }),
    };
    const times: Record<keyof typeof variants, number[]> = { api: [], v1url: [], v1b64: [] };
    const bytes: Record<keyof typeof variants, number> = { api: 0, v1url: 0, v1b64: 0 };
    for (const fn of Object.values(variants)) await fn(); // warm-up: first compiles, first connections
    for (let r = 0; r < rounds; r++) {
      for (const [name, fn] of Object.entries(variants) as [
        keyof typeof variants,
        () => Promise<{ ms: number; bytes: number }>,
      ][]) {
        const { ms, bytes: size } = await fn();
        times[name].push(ms);
        bytes[name] = size;
      }
    }
    const p = (name: keyof typeof variants, q: number) => percentile(times[name], q);
    const ratio = (a: number, b: number) => `${fmt(a / b, 2)}×`;
    return {
      head: ["OpenAI-compatible /v1 (preview engine, 1024²)", "p50 ms", "p99 ms", "answer", "ratio (p50)"],
      rows: [
        ["POST /api/generate (baseline)", fmt(p("api", 50)), fmt(p("api", 99)), `${bytes.api} B`, "1.00×"],
        [
          "POST /v1/images/generations, url",
          fmt(p("v1url", 50)),
          fmt(p("v1url", 99)),
          `${bytes.v1url} B`,
          ratio(p("v1url", 50), p("api", 50)),
        ],
        [
          "POST /v1/images/generations, b64_json",
          fmt(p("v1b64", 50)),
          fmt(p("v1b64", 99)),
          `${Math.round(bytes.v1b64 / 1024)} KB`,
          `${ratio(p("v1b64", 50), p("v1url", 50))} of url`,
        ],
      ],
      notes: [
        `${rounds} interleaved rounds after a warm-up, one request at a time; p99 of ${rounds} is their slowest.`,
        "Every variant renders and stores the same image; b64_json adds the base64 of the stored PNG to the answer.",
      ],
    };
  } finally {
    await app.stop();
  }
}
