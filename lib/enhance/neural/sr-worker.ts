// The inference worker: loads ONNX Runtime, keeps the few most recently used sessions, and runs tile and blend jobs
// on shared memory.
import { parentPort, workerData } from "node:worker_threads";
import type * as Ort from "onnxruntime-node";
import { encodeEnhanced } from "../../images/encode";
import { blendInto } from "../blend";
import {
  type ModelRef,
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

async function runTask(task: SrTask): Promise<unknown> {
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
    case "blend": {
      const { base, detail } = task;
      const pixels = new Uint8Array(base.data);
      blendInto(
        pixels,
        pixels,
        base.channels,
        new Uint8Array(detail.data),
        detail.channels,
        task.weight,
        task.from,
        task.to,
      );
      return null;
    }
    case "encode": {
      const { image } = task;
      const channels = image.channels === 4 ? 4 : 3;
      const bytes = await encodeEnhanced({ ...image, data: new Uint8Array(image.data), channels }, task.output);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
  }
}

const port = parentPort;
if (!port) throw new Error("sr-worker runs as a worker thread");
port.on("message", (msg: { id: number; task: SrTask }) => {
  runTask(msg.task).then(
    (result) => port.postMessage({ id: msg.id, result } satisfies WorkerReply),
    (err: unknown) =>
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
