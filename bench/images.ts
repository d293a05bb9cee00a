// The image library in `npm run bench`: the retention sweep's time for 10,000 expired images against the bare
// unlinking of as many files (the floor), and the cost per generation of writing the record against the durable
// PNG write it accompanies. In process, on the embedded backends (SQLite records, local files), in temp folders.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { previewEngine } from "../lib/engines/preview";
import { storeImage } from "../lib/images/library";
import type { ImageRecord } from "../lib/images/store";
import { sweepImages } from "../lib/images/sweep";
import { createLocalStorage } from "../lib/storage/local";
import { openSqliteBackend } from "../lib/store/sqlite/backend";
import type { Table } from "./neural";

const DAY_MS = 86_400_000;
const SWEPT = 10_000;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
const fmt = (n: number, d = 1) => n.toFixed(d);

/** A 1024² preview render, the size a generation stores. */
async function renderPng(): Promise<Buffer> {
  const job = {
    prompt: "a lighthouse on a cliff at sunset",
    styledPrompt: "a lighthouse on a cliff at sunset",
    model: "alpha-pro" as const,
    style: "Photorealistic" as const,
    ratio: "1:1" as const,
    width: 1024,
    height: 1024,
    requestId: "bench",
    signal: new AbortController().signal,
  };
  return (await previewEngine.generate(job)).png;
}

/** Files as the local storage names them, written without fsync: setup is not what is measured. */
function writeFiles(dir: string, ids: string[], bytes: Buffer) {
  fs.mkdirSync(dir, { recursive: true });
  for (const id of ids) fs.writeFileSync(path.join(dir, `${id}.png`), bytes);
}

async function benchSweep(root: string, png: Buffer): Promise<{ sweepMs: number; floorMs: number; runs: number }> {
  const small = png.subarray(0, 4096);
  const now = Date.now();

  // The floor: unlinking 10,000 files, nothing else.
  const floorDir = path.join(root, "floor");
  const floorIds = Array.from({ length: SWEPT }, () => crypto.randomBytes(16).toString("hex"));
  writeFiles(floorDir, floorIds, small);
  const f0 = performance.now();
  for (const id of floorIds) await fs.promises.rm(path.join(floorDir, `${id}.png`), { force: true });
  const floorMs = performance.now() - f0;

  // The sweep: 10,000 expired records with their files, removed by one sweep call (as many bounded runs as it takes).
  const dataDir = path.join(root, "sweep");
  const backend = openSqliteBackend(dataDir);
  const images = backend.images;
  const storage = createLocalStorage(dataDir, undefined);
  const ids = Array.from({ length: SWEPT }, () => crypto.randomBytes(16).toString("hex"));
  writeFiles(path.join(dataDir, "images"), ids, small);
  for (const [i, id] of ids.entries()) {
    const record: ImageRecord = {
      id,
      owner: `key_bench${i % 50}`,
      kind: "generate",
      url: `http://localhost/cdn/${id}.png`,
      params: { prompt: "bench", model: "alpha-pro", style: "Photorealistic", ratio: "1:1", seed: i },
      width: 1024,
      height: 1024,
      bytes: small.length,
      createdAt: now - 31 * DAY_MS + i,
      expiresAt: now - DAY_MS + i,
      deleteTokenHash: crypto.randomBytes(32).toString("hex"),
    };
    await images.insert(record);
  }
  let runs = 0;
  const s0 = performance.now();
  for (;;) {
    const run = await sweepImages({ images, storage, retentionDays: 30 }, { maxPerRun: SWEPT });
    if (run.removed > 0) runs++;
    if (!run.more) break;
  }
  const sweepMs = performance.now() - s0;
  const left = await images.count();
  const files = fs.readdirSync(path.join(dataDir, "images")).filter((n) => n.endsWith(".png")).length;
  if (left !== 0 || files !== 0) throw new Error(`sweep left ${left} records and ${files} files`);
  await backend.close();
  return { sweepMs, floorMs, runs };
}

async function benchRecordCost(root: string, png: Buffer): Promise<{ putUs: number[]; insertUs: number[] }> {
  const dataDir = path.join(root, "record");
  const backend = openSqliteBackend(dataDir);
  const images = backend.images;
  const storage = createLocalStorage(dataDir, undefined);
  const deps = { images, owner: "key_bench", retentionDays: 30 };
  const params = { prompt: "bench", model: "alpha-pro", style: "Photorealistic", ratio: "1:1", seed: 1 };
  const image = { kind: "generate" as const, params, width: 1024, height: 1024 };
  for (let i = 0; i < 5; i++) await storeImage(storage, png, "http://localhost", image, deps);
  // Each generation's two steps timed apart, in the order storeImage runs them: the durable PNG write (temp file,
  // fsync, rename, fsync of the folder), then the record insert.
  const putUs: number[] = [];
  const insertUs: number[] = [];
  for (let i = 0; i < 100; i++) {
    const a = performance.now();
    const stored = await storage.put(png, "http://localhost");
    const b = performance.now();
    await images.insert({
      id: stored.id,
      owner: deps.owner,
      kind: "generate",
      url: stored.url,
      params,
      width: 1024,
      height: 1024,
      bytes: png.length,
      createdAt: Date.now(),
      expiresAt: Date.now() + 30 * DAY_MS,
      deleteTokenHash: crypto.randomBytes(32).toString("hex"),
    });
    const c = performance.now();
    putUs.push((b - a) * 1000);
    insertUs.push((c - b) * 1000);
  }
  await backend.close();
  return { putUs, insertUs };
}

export async function benchImages(): Promise<Table> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-bench-images-"));
  try {
    const png = await renderPng();
    const sweep = await benchSweep(root, png);
    const cost = await benchRecordCost(root, png);
    const put = median(cost.putUs);
    const insert = median(cost.insertUs);
    const p90 = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length * 0.9)];
    return {
      head: ["image library (SQLite + local files)", "time", "ratio"],
      rows: [
        ["unlink 10,000 files (floor)", `${fmt(sweep.floorMs, 0)} ms`, "1.00×"],
        [
          `sweep 10,000 expired images (${sweep.runs} bounded run${sweep.runs === 1 ? "" : "s"})`,
          `${fmt(sweep.sweepMs, 0)} ms · ${fmt((sweep.sweepMs * 1000) / SWEPT, 0)} µs/image`,
          `${fmt(sweep.sweepMs / sweep.floorMs, 2)}× the floor`,
        ],
        [
          `durable PNG write, 1024² preview (${fmt(png.length / 1024, 0)} KB)`,
          `p50 ${fmt(put, 0)} µs · p90 ${fmt(p90(cost.putUs), 0)} µs`,
          "1.00×",
        ],
        [
          "its record insert (per generation)",
          `p50 ${fmt(insert, 0)} µs · p90 ${fmt(p90(cost.insertUs), 0)} µs`,
          `+${fmt((insert / put) * 100, 1)}% on the write`,
        ],
      ],
      notes: [
        "The sweep claims 500 records per statement, removes files 8 at a time, then deletes the records; the floor",
        "only unlinks files one by one. The record insert is timed right after each PNG write it accompanies",
        "(SQLite WAL, synchronous=NORMAL: no fsync per insert), 100 generations in the same process and folder.",
      ],
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchImages().then(
    (t) => {
      console.log(t.head.join(" | "));
      for (const r of t.rows) console.log(r.join(" | "));
      for (const n of t.notes) console.log(`  ${n}`);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
