// `npm run bench`, local GPU part: what Darkroom adds around a ComfyUI or A1111 server that answers at once, as
// POST /api/generate against the same wire calls made directly to the fake, interleaved so drift hits both alike.
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { normalizeImage } from "../lib/engines/normalize";
import { A1111_AUTH, startA1111Fake } from "../tests/fakes/a1111";
import { startComfyFake } from "../tests/fakes/comfyui";
import { imageOf } from "../tests/fakes/fake-server";
import { createKey, startApp } from "../tests/helpers/app";
import { generate } from "../tests/helpers/http";
import type { Table } from "./neural";

const SCHNELL = "flux1-schnell-fp8.safetensors";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const signed = (ms: number) => `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(1)}`;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * The whole ComfyUI exchange a client needs: socket, POST /prompt, the end marker, /history, /view. A fast server
 * can send the end marker before the POST answer arrives, so frames are kept until the prompt id is known.
 */
async function comfyDirect(base: string, prompt: unknown): Promise<void> {
  const clientId = randomUUID();
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/api/ws?clientId=${clientId}`);
  const endedIds = new Set<string>();
  let onEnd: (id: string) => void = () => undefined;
  ws.on("message", (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.type === "executing" && m.data.node === null) {
      endedIds.add(m.data.prompt_id);
      onEnd(m.data.prompt_id);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("message", () => resolve());
    ws.once("error", reject);
  });
  const submitted = await fetch(`${base}/api/prompt`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ prompt, client_id: clientId }),
  });
  const promptId = ((await submitted.json()) as { prompt_id: string }).prompt_id;
  if (!endedIds.has(promptId)) {
    await new Promise<void>((resolve) => {
      onEnd = (id) => id === promptId && resolve();
    });
  }
  ws.terminate();
  const history = (await (await fetch(`${base}/api/history/${promptId}`)).json()) as Record<
    string,
    { outputs: Record<string, { images: Record<string, string>[] }> }
  >;
  const image = Object.values(history[promptId].outputs)[0].images[0];
  const view = await fetch(`${base}/api/view?${new URLSearchParams(image)}`);
  if (view.status !== 200 || (await view.arrayBuffer()).byteLength === 0) throw new Error("direct /view failed");
}

async function a1111Direct(base: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}/sdapi/v1/txt2img`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Basic ${Buffer.from(A1111_AUTH).toString("base64")}`,
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { images: string[] };
  if (Buffer.from(json.images[0], "base64").length === 0) throw new Error("direct txt2img failed");
}

export async function benchLocalEngines(samples = Number(process.env.BENCH_LOCAL_SAMPLES ?? 60)): Promise<Table> {
  const [comfy, a1111] = await Promise.all([startComfyFake(), startA1111Fake()]);
  const app = await startApp({
    name: "bench-local",
    env: {
      COMFYUI_URLS: comfy.url,
      A1111_URLS: a1111.url,
      A1111_AUTH,
      MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl",
      MODEL_ALPHA_SCHNELL: `a1111:${SCHNELL}`,
      PRO_REQUESTS_PER_DAY: "100000000",
      GENERATE_QUEUE: "1000",
    },
  });
  const rows: string[][] = [];
  try {
    const auth = { Authorization: `Bearer ${(await createKey(app, "bench-local")).key}` };
    const viaApi = (model: string) => async () => {
      const res = await generate(
        app.url,
        { prompt: "a lighthouse at dusk", model, ratio: "1:1", seed: 7 },
        { headers: auth },
      );
      if (res.status !== 200) throw new Error(`generate failed: ${res.status} ${res.text}`);
    };
    // Warm up both paths; the app's first calls also give the exact workflow and body the direct calls replay.
    for (let i = 0; i < 3; i++) {
      await viaApi("gamma-xl-1024-v1-0")();
      await viaApi("alpha-schnell")();
    }
    const workflow = comfy.prompts.at(-1)?.prompt;
    const body = a1111.requests.filter((r) => r.path === "/sdapi/v1/txt2img").at(-1)?.body;
    const cases = [
      {
        name: "ComfyUI (comfyui:sdxl, 1024²)",
        direct: () => comfyDirect(comfy.url, workflow),
        api: viaApi("gamma-xl-1024-v1-0"),
      },
      {
        name: `A1111 (a1111:${SCHNELL}, 1024²)`,
        direct: () => a1111Direct(a1111.url, body),
        api: viaApi("alpha-schnell"),
      },
    ];
    for (const c of cases) {
      const direct: number[] = [];
      const api: number[] = [];
      for (let i = 0; i < samples; i++) {
        direct.push(await timed(c.direct));
        api.push(await timed(c.api));
      }
      const [d50, d99, a50, a99] = [
        percentile(direct, 50),
        percentile(direct, 99),
        percentile(api, 50),
        percentile(api, 99),
      ];
      rows.push([
        `${c.name}: the fake called directly`,
        `p50 ${d50.toFixed(1)} ms · p99 ${d99.toFixed(1)} ms`,
        "baseline",
      ]);
      rows.push([
        `${c.name}: POST /api/generate`,
        `p50 ${a50.toFixed(1)} ms · p99 ${a99.toFixed(1)} ms`,
        `${signed(a50 - d50)} ms at p50 · ${signed(a99 - d99)} ms at p99`,
      ]);
    }
    // The largest single part of the overhead, measured alone: every engine's image is decoded and re-encoded.
    const png = await imageOf(1024, 1024);
    const normalize: number[] = [];
    for (let i = 0; i < samples; i++)
      normalize.push(await timed(async () => void (await normalizeImage(png, 1024, 1024))));
    rows.push([
      "of which: PNG decode + re-encode at 1024², in process",
      `p50 ${percentile(normalize, 50).toFixed(1)} ms · p99 ${percentile(normalize, 99).toFixed(1)} ms`,
      "part of the overhead above",
    ]);
  } finally {
    await app.stop();
    await Promise.all([comfy.close(), a1111.close()]);
  }
  return {
    head: ["local GPU engines (fakes answering at once)", "latency", "Darkroom's overhead"],
    rows,
    notes: [
      `${samples} sequential requests per path, direct and API alternating. The API path adds HTTP parsing, the Pro key`,
      "and quota, the work queue, the pool's pick, PNG decode + re-encode at the model's size, and storage.",
    ],
  };
}
