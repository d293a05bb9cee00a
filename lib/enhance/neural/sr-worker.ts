// The inference worker: loads ONNX Runtime, keeps the few most recently used sessions, and runs tile and blend jobs
// on shared memory.
import { parentPort, workerData } from "node:worker_threads";
import type * as Ort from "onnxruntime-node";
import { encodeFinished, type FinishTimings, finishBand } from "../finish";
import type { RawImage } from "../types";
import {
  type FinishResult,
  type ModelRef,
  type SharedImage,
  type SrTask,
  type SrWorkerData,
  type TileProfile,
  toModelKey,
  type WorkerReply,
} from "./protocol";
import { openSrSession, type SrSession, type TileTimings } from "./sr-session";
import { extractRegion, placeTile } from "./tiles";

const env = workerData as SrWorkerData;
const maxSessions = env.maxSessions ?? 2;
const ort = loadRuntime();
/** Open sessions, least recently used first. */
const sessions = new Map<string, Promise<SrSession>>();

// Loaded here rather than imported at the top so a runtime that cannot load fails this worker's start with a code
// the pool recognises ("neural engine unavailable", sharp fallback) instead of failing every request.
function loadRuntime(): typeof Ort {
  try {
    return require("onnxruntime-node") as typeof Ort;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw Object.assign(new Error(`onnxruntime-node cannot load: ${(err as Error).message}`), {
      code: code === "MODULE_NOT_FOUND" || code === "ERR_DLOPEN_FAILED" ? code : "ERR_RUNTIME_UNAVAILABLE",
    });
  }
}

async function getSession(model: ModelRef): Promise<SrSession> {
  const key = toModelKey(model);
  let session = sessions.get(key);
  if (session) {
    sessions.delete(key); // re-inserted below: Map order is recency
  } else {
    session = openSrSession(ort, model, env);
    // A model that failed to open may work next time (e.g. a cache write raced); don't pin the failure.
    session.catch(() => sessions.get(key) === session && sessions.delete(key));
  }
  sessions.set(key, session);
  // One job at a time per worker, so an evicted session is never mid-run here.
  for (const [old, evicted] of sessions) {
    if (sessions.size <= maxSessions) break;
    sessions.delete(old);
    await evicted.then((s) => s.release()).catch(() => {});
  }
  return session;
}

function raw(img: SharedImage): RawImage {
  return { data: Buffer.from(img.data), width: img.width, height: img.height, channels: img.channels === 4 ? 4 : 3 };
}

function noFinishTimings(): FinishTimings {
  return { sharpen: 0, base: 0, blend: 0, encode: 0 };
}

/** Runs a job; buffers its answer hands over (instead of copying) go into `transfer`. */
async function runTask(task: SrTask, transfer: ArrayBuffer[]): Promise<unknown> {
  switch (task.type) {
    case "info":
      return (await getSession(task.model)).info;
    case "sessions":
      return [...sessions.keys()];
    case "tile": {
      const session = await getSession(task.model);
      const { input, output, tile: t } = task;
      const t0 = performance.now();
      const region = extractRegion(new Uint8Array(input.data), input.width, input.channels, t);
      const crop = { x: t.x - t.ex, y: t.y - t.ey, w: t.w, h: t.h };
      const timings: TileTimings = { toTensor: 0, network: 0, toPixels: 0 };
      const t1 = performance.now();
      const pixels = await session.run(region, t.ew, t.eh, crop, timings);
      const t2 = performance.now();
      placeTile(new Uint8Array(output.data), output.width, t, session.info.scale, pixels);
      return { cut: t1 - t0, ...timings, place: performance.now() - t2 } satisfies TileProfile;
    }
    case "finish": {
      const { out } = task;
      const timings = noFinishTimings();
      const job = { input: raw(task.input), detailSource: raw(task.detailSource), strength: task.strength };
      await finishBand(
        { ...job, out: new Uint8Array(out.data), width: out.width, height: out.height },
        task.band,
        timings,
      );
      return { timings } satisfies FinishResult;
    }
    case "encode": {
      const { out } = task;
      const timings = noFinishTimings();
      const { width, height, channels } = raw(out);
      const bytes = await encodeFinished(
        { out: new Uint8Array(out.data), width, height, channels, output: task.output },
        timings,
      );
      // sharp's buffer is external memory, which postMessage would copy: one copy here makes it transferable.
      const encoded = new Uint8Array(bytes.byteLength);
      encoded.set(bytes);
      transfer.push(encoded.buffer);
      return { encoded, timings } satisfies FinishResult;
    }
  }
}

const port = parentPort;
if (!port) throw new Error("sr-worker runs as a worker thread");
port.on("message", (msg: { id: number; task: SrTask }) => {
  const transfer: ArrayBuffer[] = [];
  runTask(msg.task, transfer).then(
    (result) => port.postMessage({ id: msg.id, result } satisfies WorkerReply, transfer),
    (err: unknown) =>
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
