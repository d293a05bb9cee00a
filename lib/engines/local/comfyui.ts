// ComfyUI: POST /prompt with a client id, follow /ws for progress and the end marker (or poll /history when the
// socket drops), then GET /view. On cancel or deadline the prompt is deleted from the queue, or interrupted if running.
import { randomUUID } from "node:crypto";
import type { ProviderCall } from "@/lib/engines/providers/types";
import type { GenerateJob } from "@/lib/engines/types";
import { alphaMaskedPng, type EditInput } from "@/lib/images/edit-input";
import { log } from "@/lib/log";
import { type ComfyMessage, type ComfySocket, EarlyFrames, openComfySocket } from "./comfyui-socket";
import { CALL_TIMEOUT_MS, httpCall, jsonOf, LocalServerError } from "./http";
import type { PoolServer, RunContext, ServerPool } from "./pool";
import { renderSizeFor, stepsFor } from "./presets";
import { comfyPreviewOf, type PreviewSink, previewSinkFor } from "./previews";
import { type ProgressReporter, reporterFor, seedFor } from "./progress";
import type { ComfyUiSettings } from "./settings";
import { fanOutWorkflow, fillWorkflow, type WorkflowGraph } from "./workflow";

const POLL_MS = 500;
const PREFIX_FACT = "comfyui-prefix";

type Phase = "submitting" | "waiting" | "running" | "done";
type ImageRef = { filename: string; subfolder: string; type: string };

/** The headers every call and the websocket carry: COMFYUI_AUTH_HEADER, when set. */
export function comfyHeadersOf(settings: ComfyUiSettings): Record<string, string> {
  return settings.authHeader ? { [settings.authHeader.name]: settings.authHeader.value } : {};
}

export function createComfyUiCall(workflow: string, settings: ComfyUiSettings, pool: ServerPool): ProviderCall {
  const template = settings.workflows[workflow];
  const headers = comfyHeadersOf(settings);
  return async ({ job, signal }) => {
    const seed = seedFor(job);
    const report = reporterFor(job);
    const previews = previewSinkFor(job);
    const ctx: RunContext = {
      requestId: job.requestId,
      signal,
      cancelled: () => job.signal.aborted,
      probe: (server) => probeQueue(server, headers, pool, signal),
    };
    // Without a {{seed}} placeholder the workflow chose its own seed, which we cannot know, nor vary per image.
    const seeded = template.uses.has("seed");
    const count = seeded ? Math.max(1, job.count ?? 1) : 1;
    // Several images: one prompt per server, each image its own sampler branch and seed (seed + i).
    const made = await pool
      .runSpread(ctx, count, (server, offset, size) => {
        const first = (seed + offset) % 2 ** 32;
        const fanned = size > 1 ? fanOutWorkflow(template.graph, size) : undefined;
        const graph = fillFor(fanned?.graph ?? template.graph, workflow, job, first, size);
        return runOnServer(server, {
          graph,
          outputs: fanned?.outputs,
          headers,
          signal,
          report,
          previews,
          pool,
          requestId: job.requestId,
          upload: uploadOf(job.input),
        }).then((images) => images.map((bytes, i) => ({ bytes, seed: seeded ? (first + i) % 2 ** 32 : undefined })));
      })
      .finally(() => previews.close());
    const [head, ...more] = made;
    return { ...head, ...(more.length > 0 && { more }) };
  };
}

function fillFor(graph: WorkflowGraph, workflow: string, job: GenerateJob, seed: number, count = 1) {
  // An edit renders at the image's own size, which the image-to-image workflows take from LoadImage.
  const size = job.input
    ? { width: job.width, height: job.height }
    : renderSizeFor(workflow, job.ratio, { width: job.width, height: job.height });
  const seeds = Object.fromEntries(
    Array.from({ length: count - 1 }, (_, i) => [`seed_${i + 1}`, (seed + i + 1) % 2 ** 32]),
  );
  return fillWorkflow(graph, {
    ...seeds,
    ...(job.input && { denoise: job.input.strength }),
    prompt: job.styledPrompt,
    negative_prompt: job.negativePrompt ?? "",
    seed,
    width: size.width,
    height: size.height,
    steps: stepsFor(workflow, job.model),
  });
}

/** The picture an edit uploads. With a mask it carries it as alpha = 1 − mask: LoadImage gives MASK = 1 − alpha and
 * the inpaint workflows repaint MASK. */
function uploadOf(input: EditInput | undefined): (() => Promise<Buffer>) | undefined {
  if (!input) return undefined;
  return () => (input.mask ? alphaMaskedPng(input, input.mask) : Promise.resolve(input.png));
}

export type RunArgs = {
  graph: unknown;
  /** The output nodes of each image, for a prompt that makes several (fanOutWorkflow); one image otherwise. */
  outputs?: string[][];
  headers: Record<string, string>;
  signal: AbortSignal;
  report: ProgressReporter;
  previews: PreviewSink;
  pool: ServerPool;
  requestId: string;
  /** A PNG to upload first (POST /upload/image); the graph's {{image}} then names the file the server stored. */
  upload?: () => Promise<Buffer>;
  /** What a progress frame's steps are, for the stage text: sampler steps, or an upscaler's tiles. */
  stepName?: string;
};

/** One attempt on one server: socket, POST /prompt, follow it to its end, then fetch its images. */
export async function runOnServer(server: PoolServer, args: RunArgs): Promise<Buffer[]> {
  const { headers, signal, pool } = args;
  const prefix = await prefixOf(server, headers, pool, signal);
  const api = (path: string) => `${server.url}${prefix}${path}`;
  const clientId = randomUUID();
  const tracker = trackPrompt(server, args);
  const socket = await connectSocket(server, `${prefix}/ws?clientId=${clientId}`, tracker, args);
  const { state } = tracker;
  const onAbort = () => {
    if (state.phase !== "done") void cancelOnServer(server, api, headers, state, clientId, socket, args.requestId);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const promptId = await submitPrompt(server, api, clientId, tracker, args);
    tracker.queued(promptId);
    await followToEnd(server, api, promptId, tracker, socket, args);
    if (state.failure) throw state.failure;
    return await fetchImages(api, promptId, args);
  } finally {
    signal.removeEventListener("abort", onAbort);
    socket?.close();
    pool.markQueueStale(server);
  }
}

type PromptTracker = ReturnType<typeof trackPrompt>;

/**
 * Follows one prompt through the socket's messages: its phase, progress, previews, failure and end. Frames that
 * come before POST /prompt names the prompt are kept (up to a cap) and replayed once it does; a server that floods
 * the socket before then loses the attempt (`flood`).
 */
function trackPrompt(server: PoolServer, args: RunArgs) {
  const { report, pool } = args;
  const state = {
    phase: "submitting" as Phase,
    promptId: undefined as string | undefined,
    ended: false,
    failure: undefined as LocalServerError | undefined,
    early: new EarlyFrames(),
  };
  let wake: () => void = () => undefined;
  const flood = new AbortController();

  /** Counts a frame that came before the prompt id; past the cap the socket goes, and so does this attempt. */
  const early = (message: ComfyMessage, bytes: number): "drop" | undefined => {
    if (state.early.add(message, bytes)) return;
    if (!flood.signal.aborted) {
      log.warn("comfyui websocket flooded before the prompt was queued; dropping it", {
        request_id: args.requestId,
        server: server.index,
      });
      flood.abort(new LocalServerError("malformed", "the server flooded the websocket before answering POST /prompt"));
    }
    return "drop";
  };
  const setRunning = () => {
    if (state.phase !== "waiting") return;
    state.phase = "running";
    report(0, "running on the GPU server");
  };
  const end = (failure?: LocalServerError) => {
    if (failure) state.failure = failure;
    state.ended = true;
    state.phase = "done";
    wake();
  };
  const handle = (message: ComfyMessage) =>
    readMessage(message, state.promptId, {
      queue: (length) => pool.recordQueue(server, length),
      running: setRunning,
      progress: (value, max) => {
        setRunning();
        report(value / max, `${args.stepName ?? "sampling step"} ${value}/${max}`);
      },
      end,
    });
  return {
    state,
    flood: flood.signal,
    end: () => end(),
    /** Resolves at the prompt's end, or when `also` settles first. */
    untilWoken: (also: Promise<unknown>) => Promise.race([new Promise<void>((r) => (wake = r)), also]),
    onMessage: (message: ComfyMessage, bytes: number): "drop" | undefined => {
      if (state.promptId !== undefined || message.type === "status") return void handle(message);
      return early(message, bytes);
    },
    // A preview names its prompt only in the metadata format; on this client id's socket any other one is ours.
    onBinary: (frame: Buffer): "drop" | undefined => {
      // Nothing binary is kept before the prompt id, but it counts towards the flood cap.
      if (state.promptId === undefined) return early({ type: "binary", data: {} }, frame.length);
      if (state.phase === "done") return;
      const preview = comfyPreviewOf(frame);
      if (preview && (preview.promptId === undefined || preview.promptId === state.promptId)) {
        args.previews.offer(preview.image);
      }
    },
    /** POST /prompt named the prompt: it waits in the server's queue, and the frames kept so far are read. */
    queued: (promptId: string) => {
      state.promptId = promptId;
      state.phase = "waiting";
      report(null, "queued on the GPU server");
      for (const message of state.early.take()) handle(message);
    },
  };
}

/** What a socket message says: the server's queue length, or of our prompt its start, a step, an error or its end. */
function readMessage(
  message: ComfyMessage,
  promptId: string | undefined,
  on: {
    queue: (length: number) => void;
    running: () => void;
    progress: (value: number, max: number) => void;
    end: (failure?: LocalServerError) => void;
  },
): void {
  const data = message.data;
  if (message.type === "status") {
    const queue = (data.status as { exec_info?: { queue_remaining?: unknown } } | undefined)?.exec_info
      ?.queue_remaining;
    if (typeof queue === "number") on.queue(queue);
    return;
  }
  if (data.prompt_id !== undefined && data.prompt_id !== promptId) return;
  if (message.type === "execution_start") on.running();
  else if (message.type === "executing" && data.node === null) on.end();
  else if (message.type === "executing") on.running();
  else if (message.type === "progress") {
    const value = Number(data.value);
    const max = Number(data.max);
    if (Number.isFinite(value) && max > 0) on.progress(value, max);
    else on.running();
  } else if (message.type === "execution_error") {
    on.end(
      new LocalServerError(
        "http",
        `execution_error in node ${String(data.node_id)} (${String(data.node_type)}): ${String(data.exception_type)}: ${String(data.exception_message).slice(0, 300)}`,
      ),
    );
  } else if (message.type === "execution_interrupted" && data.prompt_id !== undefined) {
    on.end(new LocalServerError("http", "the prompt was interrupted on the server"));
  }
}

/** The progress socket, or none: HTTP still works without it (e.g. a proxy that does not pass upgrades). */
async function connectSocket(
  server: PoolServer,
  path: string,
  tracker: PromptTracker,
  args: RunArgs,
): Promise<ComfySocket | undefined> {
  const { headers, signal } = args;
  try {
    return await openComfySocket(server.url, path, headers, tracker.onMessage, signal, tracker.onBinary);
  } catch (err) {
    if (tracker.flood.aborted) throw tracker.flood.reason;
    if (signal.aborted || (err instanceof LocalServerError && err.details.refused)) throw err;
    log.warn("comfyui websocket unavailable, polling instead", {
      request_id: args.requestId,
      server: server.index,
      detail: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}

/** Uploads an edit's image, then POSTs the prompt; returns the prompt id the server gave it. */
async function submitPrompt(
  server: PoolServer,
  api: (path: string) => string,
  clientId: string,
  tracker: PromptTracker,
  args: RunArgs,
): Promise<string> {
  const { headers, signal } = args;
  // An edit's or an enhancement's image goes to the server that runs it first; LoadImage then names the stored file.
  const graph = args.upload
    ? fillWorkflow(args.graph, { image: await uploadImage(api, headers, await args.upload(), signal) })
    : args.graph;
  const submitted = await httpCall(api("/prompt"), {
    method: "POST",
    headers,
    json: { prompt: graph, client_id: clientId },
    signal: AbortSignal.any([signal, tracker.flood]),
    timeoutMs: CALL_TIMEOUT_MS,
  });
  if (tracker.flood.aborted) throw tracker.flood.reason;
  if (submitted.status !== 200) {
    // A server replaced by another ComfyUI version may have gained or lost the /api/ paths: learn them again.
    if (submitted.status === 404) server.facts.delete(PREFIX_FACT);
    throw refusedPrompt(submitted.status, submitted.body);
  }
  const promptId = (jsonOf(submitted, "POST /prompt") as { prompt_id?: unknown }).prompt_id;
  if (typeof promptId !== "string" || promptId === "") {
    throw new LocalServerError("malformed", "POST /prompt answered without a prompt_id");
  }
  return promptId;
}

/** Waits for the prompt's end on the socket, or by polling /history once the socket is gone. */
async function followToEnd(
  server: PoolServer,
  api: (path: string) => string,
  promptId: string,
  tracker: PromptTracker,
  socket: ComfySocket | undefined,
  args: RunArgs,
): Promise<void> {
  const { headers, signal, report } = args;
  while (!tracker.state.ended) {
    if (socket?.isOpen()) {
      await untilAborted(tracker.untilWoken(socket.closed), signal);
      if (!tracker.state.ended && !socket.isOpen()) {
        log.warn("comfyui websocket dropped, polling /history", {
          request_id: args.requestId,
          server: server.index,
        });
        report(null, "running on the GPU server (live progress lost)");
      }
      continue;
    }
    if (await pollHistory(api, promptId, headers, signal)) tracker.end();
    else await untilAborted(new Promise((r) => setTimeout(r, POLL_MS)), signal);
  }
}

/** GET /view of each output image, in order. */
async function fetchImages(api: (path: string) => string, promptId: string, args: RunArgs): Promise<Buffer[]> {
  const { headers, signal, report } = args;
  const images = await outputImagesOf(api, promptId, headers, signal, args.outputs);
  report(1, images.length > 1 ? "fetching the images" : "fetching the image");
  const bodies: Buffer[] = [];
  for (const image of images) {
    const view = await httpCall(api(`/view?${new URLSearchParams(image)}`), {
      headers,
      signal,
      timeoutMs: CALL_TIMEOUT_MS,
    });
    if (view.status !== 200) {
      throw new LocalServerError("http", `GET /view answered ${view.status}`, { status: view.status });
    }
    bodies.push(view.body);
  }
  return bodies;
}

/** True once the prompt's history entry exists (it is written before the end marker is sent). */
async function pollHistory(
  api: (p: string) => string,
  promptId: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) {
  const reply = await httpCall(api(`/history/${encodeURIComponent(promptId)}`), {
    headers,
    signal,
    timeoutMs: CALL_TIMEOUT_MS,
  });
  if (reply.status !== 200)
    throw new LocalServerError("http", `GET /history answered ${reply.status}`, { status: reply.status });
  const history = jsonOf(reply, "GET /history") as Record<string, unknown>;
  return history[promptId] !== undefined;
}

/** The image to fetch for each image of the prompt: per `outputs` entry, or one from any output node. */
async function outputImagesOf(
  api: (p: string) => string,
  promptId: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  outputs: string[][] | undefined,
): Promise<ImageRef[]> {
  const reply = await httpCall(api(`/history/${encodeURIComponent(promptId)}`), {
    headers,
    signal,
    timeoutMs: CALL_TIMEOUT_MS,
  });
  if (reply.status !== 200)
    throw new LocalServerError("http", `GET /history answered ${reply.status}`, { status: reply.status });
  const entry = (jsonOf(reply, "GET /history") as Record<string, unknown>)[promptId] as
    | { outputs?: Record<string, { images?: unknown }>; status?: { status_str?: unknown; messages?: unknown } }
    | undefined;
  if (!entry) throw new LocalServerError("malformed", "the prompt ended but has no history entry");
  if (entry.status?.status_str === "error")
    throw new LocalServerError("http", `the prompt failed: ${errorOf(entry.status.messages)}`);
  const all = entry.outputs ?? {};
  return (outputs ?? [Object.keys(all)]).map((nodes) => {
    const images = nodes.flatMap((id) => (Array.isArray(all[id]?.images) ? (all[id].images as unknown[]) : []));
    const refs = images.filter(
      (i): i is ImageRef =>
        typeof (i as ImageRef)?.filename === "string" &&
        typeof (i as ImageRef).type === "string" &&
        typeof ((i as ImageRef).subfolder ?? "") === "string",
    );
    // SaveImage's "output" files outlive PreviewImage's "temp" ones.
    const image = refs.find((i) => i.type === "output") ?? refs[0];
    if (!image) throw new LocalServerError("malformed", "the prompt finished without an output image");
    return { filename: image.filename, subfolder: image.subfolder ?? "", type: image.type };
  });
}

function errorOf(messages: unknown): string {
  if (!Array.isArray(messages)) return "no detail";
  const error = messages.find(
    (m) => Array.isArray(m) && (m[0] === "execution_error" || m[0] === "execution_interrupted"),
  );
  if (!error) return "no detail";
  const data = (error[1] ?? {}) as Record<string, unknown>;
  return error[0] === "execution_interrupted"
    ? "interrupted"
    : `${String(data.node_type)}: ${String(data.exception_type)}: ${String(data.exception_message).slice(0, 300)}`;
}

function refusedPrompt(status: number, body: Buffer): LocalServerError {
  let detail = "";
  try {
    const json = JSON.parse(body.toString("utf8"));
    const error = json?.error;
    detail =
      typeof error === "string" ? error : `${error?.type ?? ""}: ${error?.message ?? ""} ${error?.details ?? ""}`;
  } catch {
    detail = "";
  }
  return new LocalServerError(
    "http",
    `POST /prompt answered ${status}${detail ? ` (${detail.trim().slice(0, 300)})` : ""}`,
    {
      status,
    },
  );
}

/** Cancels the prompt where it is: deleted from the queue while waiting, interrupted while running. */
async function cancelOnServer(
  server: PoolServer,
  api: (p: string) => string,
  headers: Record<string, string>,
  state: { phase: Phase; promptId?: string },
  clientId: string,
  socket: ComfySocket | undefined,
  requestId: string,
): Promise<void> {
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  try {
    let { phase, promptId } = state;
    // Without a live socket (or before POST /prompt answered) the queue itself says where the prompt is.
    if (!socket?.isOpen() || promptId === undefined) {
      const found = await findInQueue(api, headers, signal, promptId, clientId);
      if (!found) return;
      ({ phase, promptId } = found);
    }
    if (phase === "waiting") {
      await httpCall(api("/queue"), { method: "POST", headers, json: { delete: [promptId] }, signal });
    } else {
      await httpCall(api("/interrupt"), { method: "POST", headers, json: { prompt_id: promptId }, signal });
    }
    log.info("comfyui prompt cancelled", { request_id: requestId, server: server.index, was: phase });
  } catch (err) {
    log.warn("comfyui cancel failed", {
      request_id: requestId,
      server: server.index,
      detail: err instanceof Error ? err.message : String(err),
    });
  }
}

async function findInQueue(
  api: (p: string) => string,
  headers: Record<string, string>,
  signal: AbortSignal,
  promptId: string | undefined,
  clientId: string,
): Promise<{ phase: Phase; promptId: string } | undefined> {
  const reply = await httpCall(api("/queue"), { headers, signal });
  const queue = jsonOf(reply, "GET /queue") as { queue_running?: unknown; queue_pending?: unknown };
  // Queue items are [number, prompt_id, prompt, extra_data, outputs_to_execute, …].
  const match = (item: unknown) =>
    Array.isArray(item) &&
    (item[1] === promptId || (item[3] as { client_id?: unknown } | undefined)?.client_id === clientId);
  const running = Array.isArray(queue.queue_running) ? queue.queue_running.find(match) : undefined;
  if (running) return { phase: "running", promptId: running[1] };
  const pending = Array.isArray(queue.queue_pending) ? queue.queue_pending.find(match) : undefined;
  if (pending) return { phase: "waiting", promptId: pending[1] };
  return undefined;
}

/** Learns once per server whether it serves the /api/-prefixed paths (newer ComfyUI) or only the bare ones. */
export async function prefixOf(
  server: PoolServer,
  headers: Record<string, string>,
  pool: ServerPool,
  signal: AbortSignal,
) {
  const known = server.facts.get(PREFIX_FACT);
  if (typeof known === "string") return known;
  await probeQueue(server, headers, pool, signal);
  return server.facts.get(PREFIX_FACT) as string;
}

/** GET /prompt: { exec_info: { queue_remaining } }, pending plus running prompts. Also settles the path prefix. */
export async function probeQueue(
  server: PoolServer,
  headers: Record<string, string>,
  pool: ServerPool,
  signal: AbortSignal,
) {
  const known = server.facts.get(PREFIX_FACT);
  const prefixes = typeof known === "string" ? [known] : ["/api", ""];
  for (const prefix of prefixes) {
    const reply = await httpCall(`${server.url}${prefix}/prompt`, { headers, signal, timeoutMs: CALL_TIMEOUT_MS });
    if (reply.status === 404 && prefix === "/api") continue;
    if (reply.status !== 200)
      throw new LocalServerError("http", `GET ${prefix}/prompt answered ${reply.status}`, { status: reply.status });
    const queue = (jsonOf(reply, "GET /prompt") as { exec_info?: { queue_remaining?: unknown } }).exec_info
      ?.queue_remaining;
    if (typeof queue !== "number")
      throw new LocalServerError("malformed", "GET /prompt has no exec_info.queue_remaining");
    server.facts.set(PREFIX_FACT, prefix);
    pool.recordQueue(server, queue);
    return;
  }
  throw new LocalServerError("http", "neither /api/prompt nor /prompt answered: is this a ComfyUI server?");
}

/** Waits for `work`, or rejects as soon as the signal fires; leaves no listener behind either way. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** POST /upload/image (server.py's image_upload): the multipart `image` field, stored as an input file. */
async function uploadImage(
  api: (path: string) => string,
  headers: Record<string, string>,
  png: Buffer,
  signal: AbortSignal,
): Promise<string> {
  const form = new FormData();
  form.append("image", new Blob([new Uint8Array(png)], { type: "image/png" }), `darkroom-${randomUUID()}.png`);
  form.append("type", "input");
  form.append("overwrite", "true");
  const reply = await httpCall(api("/upload/image"), {
    method: "POST",
    headers,
    form,
    signal,
    timeoutMs: CALL_TIMEOUT_MS,
  });
  if (reply.status !== 200)
    throw new LocalServerError("http", `POST /upload/image answered ${reply.status}`, { status: reply.status });
  const answer = jsonOf(reply, "POST /upload/image") as { name?: unknown; subfolder?: unknown };
  if (typeof answer.name !== "string" || answer.name === "") {
    throw new LocalServerError("malformed", "POST /upload/image answered without a name");
  }
  // LoadImage names a file in a subfolder of the input folder as "<subfolder>/<name>".
  return typeof answer.subfolder === "string" && answer.subfolder !== ""
    ? `${answer.subfolder}/${answer.name}`
    : answer.name;
}
