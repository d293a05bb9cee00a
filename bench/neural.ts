// `npm run bench`, neural part: /api/enhance against the tfjs-wasm reference, GFLOP/s vs a MatMul ceiling, memory, PSNR.
import { type ChildProcess, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as ort from "onnxruntime-node";
import sharp from "sharp";
import { encodeModel, TensorDataType } from "../lib/enhance/neural/onnx-proto";
import { convertPackageModel } from "../lib/enhance/neural/package-models";
import { hasPhotos, loadCrop, measurePsnr, PHOTOS, type Rgb, resizeLanczos } from "../tests/fixtures/photos";
import { type App, startApp } from "../tests/helpers/app";
import { call, enhance } from "../tests/helpers/http";

const ROOT = path.resolve(__dirname, "..");
type Pkg = "esrgan-slim" | "esrgan-medium";
type RefCase = { pkg: Pkg; scale: 2 | 4; size: number };
export type Table = { head: string[]; rows: string[][]; notes: string[] };

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
const fmt = (n: number, d = 1) => n.toFixed(d);

/** The bench input: a real photo (skimage's astronaut), else the photo the slim package ships. */
export async function loadBenchPhoto(size: number): Promise<Rgb> {
  const astronaut = await (hasPhotos() ? loadCrop("astronaut.png", 512, 512) : loadPackagePhoto());
  return size === astronaut.width ? astronaut : resizeLanczos(astronaut, size, size);
}

async function loadPackagePhoto(): Promise<Rgb> {
  const file = path.join(ROOT, "node_modules/@upscalerjs/esrgan-slim/assets/fixture.png");
  const { data, info } = await sharp(file).removeAlpha().resize(512, 512).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** Child-process side: times the reference on request, so tfjs never shares a process (or a moment) with the server. */
export async function serveReference() {
  const { createTfjsReference } = await import("../tests/fixtures/tfjs-reference");
  process.on("message", async (c: RefCase) => {
    const ref = await createTfjsReference(c.pkg, c.scale);
    const img = await loadBenchPhoto(c.size);
    // upscaler's recommended patch 128 / padding 8, as a browser user would run it.
    const t = performance.now();
    await ref.upscale(img.data, img.width, img.height, { patchSize: 128, padding: 8 });
    const ms = performance.now() - t;
    await ref.dispose();
    process.send!({ ms });
  });
  process.send!({ ready: true });
}

function startReference(): Promise<{ time: (c: RefCase) => Promise<number>; stop: () => void }> {
  const child: ChildProcess = fork(__filename.replace(/neural\.ts$/, "run.ts"), ["--reference-child"], {
    execArgv: ["--import", "tsx"],
    cwd: ROOT,
  });
  let pending: { resolve: (m: { ms?: number }) => void; reject: (e: Error) => void } | undefined;
  child.on("message", (m) => pending?.resolve(m as { ms?: number }));
  child.on("exit", (code) => pending?.reject(new Error(`reference exited ${code}`)));
  const next = () => new Promise<{ ms?: number }>((resolve, reject) => (pending = { resolve, reject }));
  return next().then(() => ({
    time: async (c) => {
      const reply = next();
      child.send(c);
      return (await reply).ms!;
    },
    stop: () => child.kill(),
  }));
}

/** ORT MatMul n³ float32 with the server's total thread count: the dense-FLOP ceiling of this machine right now. */
async function measureMatmulCeiling(threads: number, n = 1024): Promise<number> {
  const model = encodeModel({
    irVersion: 8,
    opset: 17,
    producerName: "bench",
    producerVersion: "1",
    graphName: "mm",
    nodes: [{ name: "mm", opType: "MatMul", inputs: ["a", "b"], outputs: ["c"] }],
    initializers: [],
    inputs: [
      { name: "a", elemType: TensorDataType.FLOAT, shape: [n, n] },
      { name: "b", elemType: TensorDataType.FLOAT, shape: [n, n] },
    ],
    outputs: [{ name: "c", elemType: TensorDataType.FLOAT, shape: [n, n] }],
    metadata: [],
  });
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  });
  const a = new ort.Tensor(
    "float32",
    new Float32Array(n * n).map(() => Math.random()),
    [n, n],
  );
  const b = new ort.Tensor(
    "float32",
    new Float32Array(n * n).map(() => Math.random()),
    [n, n],
  );
  let best = Infinity;
  for (let i = 0; i < 12; i++) {
    const t = performance.now();
    await s.run({ a, b });
    best = Math.min(best, performance.now() - t);
  }
  await s.release();
  return (2 * n ** 3) / (best / 1000) / 1e9;
}

async function encodePng(img: Rgb): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

async function postEnhance(
  app: App,
  auth: Record<string, string>,
  png: Buffer,
  fields: Record<string, string>,
  expect: string,
) {
  const res = await enhance(
    app.url,
    { image: { data: png, type: "image/png" }, ...fields },
    { headers: auth, timeoutMs: 300_000 },
  );
  if (res.status !== 200 || res.json.enhanced_size !== expect)
    throw new Error(`enhance failed: ${res.status} ${res.text}`);
  return res;
}

/** Speed: the reference and /api/enhance end to end on the same model and input, interleaved round by round. */
export async function benchSpeed(app: App, auth: Record<string, string>, rounds: number): Promise<Table> {
  const cases = [
    { label: "fast 512²→1024²", model: "fast", pkg: "esrgan-slim", scale: 2, size: 512, target: 0.25 },
    { label: "quality 512²→1024²", model: "quality", pkg: "esrgan-medium", scale: 2, size: 512 },
    { label: "fast 256²→1024² (4×)", model: "fast", pkg: "esrgan-slim", scale: 4, size: 256 },
    { label: "quality 256²→1024² (4×)", model: "quality", pkg: "esrgan-medium", scale: 4, size: 256 },
  ] as const;
  const pngs = new Map<number, Buffer>();
  for (const size of [512, 256]) pngs.set(size, await encodePng(await loadBenchPhoto(size)));
  const reference = await startReference();
  const refMs: number[][] = cases.map(() => []);
  const apiMs: number[][] = cases.map(() => []);
  const ceilings: number[] = [];
  try {
    for (const c of cases)
      await postEnhance(
        app,
        auth,
        pngs.get(c.size)!,
        { model: c.model, scale: String(c.scale), strength: "0.5" },
        "1024x1024",
      ); // warm sessions
    for (let r = 0; r < rounds; r++) {
      for (const [i, c] of cases.entries()) {
        refMs[i].push(await reference.time({ pkg: c.pkg, scale: c.scale, size: c.size }));
        const t = performance.now();
        await postEnhance(
          app,
          auth,
          pngs.get(c.size)!,
          { model: c.model, scale: String(c.scale), strength: "0.5" },
          "1024x1024",
        );
        apiMs[i].push(performance.now() - t);
      }
      ceilings.push(await measureMatmulCeiling(os.availableParallelism()));
      console.error(
        `neural round ${r + 1}/${rounds}: ref ${refMs.map((v) => fmt(v[r], 0)).join(" ")} · api ${apiMs.map((v) => fmt(v[r], 0)).join(" ")} ms`,
      );
    }
  } finally {
    reference.stop();
  }
  const ceiling = Math.max(...ceilings);
  const rows = cases.map((c, i) => {
    const flops = convertPackageModel(ROOT, c.pkg, c.scale).info.flopsPerInputPixel * c.size * c.size;
    const ratio = median(apiMs[i].map((ms, r) => ms / refMs[i][r]));
    const best = Math.min(...apiMs[i]);
    const gflops = flops / 1e9 / (best / 1000);
    const target = "target" in c ? ` (target ≤ ${c.target}×)` : "";
    return [
      `${c.label} · ${c.pkg} x${c.scale}`,
      `${fmt(median(refMs[i]), 0)} ms`,
      `${fmt(median(apiMs[i]), 0)} ms`,
      `${fmt(ratio, 3)}×${target}`,
      fmt(flops / 1e9),
      `${fmt(gflops)} (${fmt((100 * gflops) / ceiling, 0)} %)`,
    ];
  });
  return {
    head: [
      "neural speed (median of rounds)",
      "tfjs-wasm reference",
      "/api/enhance end to end",
      "ratio (median per round)",
      "GFLOP",
      "GFLOP/s e2e (% of ceiling)",
    ],
    rows,
    notes: [
      `Ceiling: ORT MatMul 1024³ float32 with ${os.availableParallelism()} threads, best of ${rounds} rounds: ${fmt(ceiling)} GFLOP/s. GFLOP/s e2e = model FLOPs / best end-to-end time (upload, decode, inference, sharpen, blend, PNG encode and store included).`,
      "Reference: upscaler 1.0 on @tensorflow/tfjs 4.11 + tfjs-backend-wasm (single-threaded in Node, SIMD), patch 128 / padding 8, in a child process while the server is idle.",
    ],
  };
}

/** The server process: whoever owns the listening socket of the app's port. */
export function findServerPid(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === "0A") inodes.add(f[9]);
    }
  }
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(pid);
      }
    } catch {
      /* processes come and go */
    }
  }
  throw new Error(`no process listens on port ${port}`);
}

function readPeakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]) / 1024;
}

/** Memory: a fresh server's peak RSS (VmHWM, worker threads included) with 4 requests of 1024²→2048² in flight. */
export async function benchMemory(auth: (app: App) => Promise<Record<string, string>>): Promise<Table> {
  const app = await startApp({ name: "bench-mem", env: { PRO_REQUESTS_PER_DAY: "100000000" } });
  const rows: string[][] = [];
  try {
    const headers = await auth(app);
    const pid = findServerPid(app.port);
    const png = await encodePng(await loadBenchPhoto(1024));
    rows.push(["server at rest (after start)", `${fmt(readPeakRssMb(pid), 0)} MB`, "", ""]);
    for (const model of ["fast", "quality"]) {
      const t = performance.now();
      await Promise.all(
        Array.from({ length: 4 }, () => postEnhance(app, headers, png, { model, strength: "1" }, "2048x2048")),
      );
      const peak = readPeakRssMb(pid);
      const label =
        model === "fast"
          ? "4 × fast 1024²→2048² in flight"
          : "then 4 × quality 1024²→2048² (both models' sessions live)";
      rows.push([
        label,
        `${fmt(peak, 0)} MB`,
        `${fmt((performance.now() - t) / 1000)} s for all 4`,
        peak <= 1536 ? "≤ 1.5 GB ✓" : "> 1.5 GB ✗",
      ]);
    }
  } finally {
    await app.stop();
  }
  return {
    head: ["server memory (fresh process)", "peak RSS (VmHWM)", "time", "target ≤ 1.5 GB"],
    rows,
    notes: [
      `Default pool: ENHANCE_WORKERS = ${os.availableParallelism()} (the cores), 1 ORT thread each; requests beyond the workers wait in the bounded queue.`,
    ],
  };
}

/** Quality: HR photo crop → lanczos3 /2 → /api/enhance 2× → PSNR against HR, per model, at strength 0 and 1. */
export async function benchPsnr(app: App, auth: Record<string, string>): Promise<Table> {
  if (!hasPhotos()) {
    return {
      head: ["PSNR"],
      rows: [["skipped: python3-skimage's photos are missing (apt-get install python3-skimage)"]],
      notes: [],
    };
  }
  const cols = [
    ["fast", "0"],
    ["fast", "1"],
    ["quality", "0"],
    ["quality", "1"],
  ] as const;
  const gains: number[][] = cols.map(() => []);
  const rows: string[][] = [];
  for (const name of PHOTOS) {
    const probe = await loadCrop(name);
    const side = Math.floor(Math.min(512, probe.width, probe.height) / 4) * 4;
    const hr = await loadCrop(name, side, side);
    const lr = await resizeLanczos(hr, side / 2, side / 2);
    const base = measurePsnr((await resizeLanczos(lr, side, side)).data, hr.data);
    const png = await encodePng(lr);
    const row = [`${name} ${side}²`, fmt(base, 2)];
    for (const [i, [model, strength]] of cols.entries()) {
      const res = await postEnhance(app, auth, png, { model, strength, scale: "2" }, `${side}x${side}`);
      const out = await sharp((await call(res.json.url, "")).body)
        .removeAlpha()
        .raw()
        .toBuffer();
      const gain = measurePsnr(out, hr.data) - base;
      gains[i].push(gain);
      row.push(`${gain >= 0 ? "+" : ""}${fmt(gain, 2)}`);
    }
    rows.push(row);
  }
  const mean = gains.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
  rows.push(["mean gain over lanczos3", "", ...mean.map((m) => `${m >= 0 ? "+" : ""}${fmt(m, 2)}`)]);
  rows.push([
    "target",
    "",
    `|gain| ≤ 0.5 ${Math.abs(mean[0]) <= 0.5 ? "✓" : "✗"}`,
    `≥ +1.5 ${mean[1] >= 1.5 ? "✓" : "✗"}`,
    `|gain| ≤ 0.5 ${Math.abs(mean[2]) <= 0.5 ? "✓" : "✗"}`,
    `≥ +1.5 ${mean[3] >= 1.5 ? "✓" : "✗"}`,
  ]);
  return {
    head: ["PSNR (dB) on python3-skimage photos", "lanczos3 ×2", "fast s=0", "fast s=1", "quality s=0", "quality s=1"],
    rows,
    notes: [
      "HR = centre crop (≤ 512², multiple of 4); LR = lanczos3 /2; each column is PSNR(output, HR) − PSNR(lanczos3 ×2, HR), RGB, through /api/enhance (PNG in and out).",
    ],
  };
}
