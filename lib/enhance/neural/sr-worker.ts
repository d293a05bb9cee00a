// The inference worker: loads ONNX Runtime, keeps one session per model, and answers info and tile jobs.
import { parentPort, workerData } from "node:worker_threads";
import type * as Ort from "onnxruntime-node";
import { type ModelRef, type SrTask, type SrWorkerData, toModelKey, type WorkerReply } from "./protocol";
import { openSrSession, type SrSession } from "./sr-session";

const env = workerData as SrWorkerData;
const port = parentPort!;
// Loaded here rather than imported at the top so a missing native binding fails this worker's start, which the
// pool reports as "neural engine unavailable" (sharp fallback) instead of a per-request error.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ort = require("onnxruntime-node") as typeof Ort;
const sessions = new Map<string, Promise<SrSession>>();

function getSession(model: ModelRef): Promise<SrSession> {
  const key = toModelKey(model);
  let session = sessions.get(key);
  if (!session) {
    session = openSrSession(ort, model, env);
    // A model that failed to open may work next time (e.g. a cache write raced); don't pin the failure.
    session.catch(() => sessions.delete(key));
    sessions.set(key, session);
  }
  return session;
}

async function runTask(task: SrTask): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  const session = await getSession(task.model);
  if (task.type === "info") return { result: session.info, transfer: [] };
  const data = await session.run(task.data, task.width, task.height, task.crop);
  return { result: { data }, transfer: [data.buffer as ArrayBuffer] };
}

port.on("message", (msg: { id: number; task: SrTask }) => {
  runTask(msg.task).then(
    ({ result, transfer }) => port.postMessage({ id: msg.id, result } satisfies WorkerReply, transfer),
    (err: unknown) =>
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
