// A loopback ComfyUI on its real wire format (server.py, execution.py, main.py): POST /prompt queues an API-format
// workflow, one worker runs the queue, and /ws?clientId= gets { type, data } frames: status, execution_start,
// execution_cached, executing (node null = the end), progress { value, max }, executed, execution_success,
// execution_error, execution_interrupted. /history, /queue, /interrupt and /view as the real routes, under /api/ too.
// Sampler previews (when `previews` is set) as binary frames after each progress frame, as main.py's progress hook
// and server.py send them: PREVIEW_IMAGE (1) = [u32 1][u32 format: 1 JPEG, 2 PNG][image], or, to a client whose
// first message was feature_flags with supports_preview_metadata (and not on a `legacy` server),
// PREVIEW_IMAGE_WITH_METADATA (4) = [u32 4][u32 length][metadata JSON with prompt_id, node_id, image_type][image].
// Enhancement's nodes as their real definitions declare them (comfy_extras/nodes_upscale_model.py, nodes.py, and the
// facerestore_cf pack's __init__.py), listed by GET /object_info[/<class>] (server.py's node_info), with
// validate_prompt's refusals (a node class it does not have, a combo value not in its list); images have the size
// their graph makes: an upscale model's factor, ImageScale's width and height.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import sharp from "sharp";
import { WebSocket, WebSocketServer } from "ws";
import { imageOf } from "./fake-server";

/** `flood`: a hostile server that, on POST /prompt, floods the client's socket with JSON frames before answering. */
export type ComfyMode = "ok" | "error" | "reject" | "http-error" | "drop-ws" | "flood";

export type ComfyRecorded = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
};

type QueueItem = [number, string, Record<string, Node>, { client_id?: string }, string[]];
type Node = { class_type: string; inputs: Record<string, unknown> };
type HistoryEntry = {
  prompt: QueueItem;
  outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }>;
  status: { status_str: "success" | "error"; completed: boolean; messages: [string, unknown][] };
  meta: Record<string, unknown>;
};

export type ComfyFake = {
  name: string;
  url: string;
  mode: ComfyMode;
  /** While true, queued prompts wait (a busy GPU): for cancelling a prompt that has not started. */
  paused: boolean;
  /** Delay before each sampler step, in ms. */
  stepDelayMs: number;
  /** Prompts of other users this server reports in its queue length. */
  externalQueue: number;
  requests: ComfyRecorded[];
  /** Every workflow accepted by POST /prompt, with its client id. */
  prompts: { id: string; prompt: Record<string, Node>; clientId?: string }[];
  /** Files received by POST /upload/image, by name. */
  uploads: Map<string, { width: number; height: number; hasAlpha: boolean }>;
  /** Request-shape problems; tests assert this stays empty. */
  violations: string[];
  /** Files in models/upscale_models, each with its model's factor (UpscaleModelLoader's model_name list). */
  upscaleModels: Map<string, number>;
  /** Whether the facerestore_cf pack is installed, and the files in models/facerestore_models. */
  faceNodes: boolean;
  faceModels: string[];
  /** Each image a SaveImage or PreviewImage node wrote, with the sizes along its way (what ImageUpscaleWithModel made). */
  saved: { node: string; width: number; height: number; upscaled?: { width: number; height: number } }[];
  /** Websocket connections accepted so far. */
  socketsOpened: number;
  /** Sampler steps sent as progress frames so far. */
  stepsSent: number;
  /** Whether the sampler sends preview frames, and in which image format (latent_preview's default is JPEG). */
  previews: false | "JPEG" | "PNG";
  /** Preview frames sent: the binary event type used and the step each one shows. */
  previewsSent: { event: 1 | 4; step: number }[];
  /** In `flood` mode: the padding in each frame (binary preview frames when `binary`), how long it may last, what it did. */
  flood: {
    frameBytes: number;
    binary?: boolean;
    maxMs: number;
    framesSent: number;
    bytesSent: number;
    lastedMs: number;
  };
  /** How many prompts are running or waiting now. */
  busy: () => number;
  /** The most prompts it has held at once (running and waiting) since it started or was reset. */
  mostBusy: number;
  reset: () => void;
  close: () => Promise<void>;
};

const OUTPUT_NODES = new Set(["SaveImage", "PreviewImage"]);
/** The progress bar of ImageUpscaleWithModel (tiled_scale's steps): this many tiles per image here. */
const UPSCALE_TILES = 4;
const DEFAULT_UPSCALE_MODELS: [string, number][] = [
  ["4x-UltraSharp.pth", 4],
  ["RealESRGAN_x2plus.pth", 2],
];
const DEFAULT_FACE_MODELS = ["GFPGANv1.4.pth", "codeformer.pth"];
const FACE_DETECTORS = ["retinaface_resnet50", "retinaface_mobile0.25", "YOLOv5l", "YOLOv5n"];
/** ImageScale's upscale_methods and crop_methods (nodes.py). */
const SCALE_METHODS = ["nearest-exact", "bilinear", "area", "bicubic", "lanczos"];
const CROP_METHODS = ["disabled", "center"];
const LATENT_NODES = new Set(["EmptyLatentImage", "EmptySD3LatentImage"]);
const images = new Map<string, Promise<Buffer>>();

/** One PNG per size, made once: the fake answers "at once" apart from its configured step delay. */
function pngOf(width: number, height: number): Promise<Buffer> {
  const key = `${width}x${height}`;
  let png = images.get(key);
  if (!png) {
    png = imageOf(width, height);
    images.set(key, png);
  }
  return png;
}

export async function startComfyFake(
  opts: { name?: string; legacy?: boolean; authHeader?: { name: string; value: string } } = {},
): Promise<ComfyFake> {
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true });
  const connections = new Set<net.Socket>();
  const sockets = new Map<string, WebSocket>();
  /** sockets_metadata: the client ids whose first message declared supports_preview_metadata. */
  const metadataClients = new Set<string>();
  const files = new Map<string, Buffer>();
  const history = new Map<string, HistoryEntry>();
  let pending: QueueItem[] = [];
  let running: QueueItem | undefined;
  let interruptFlag = false;
  let number = 0;
  // folder_paths' counter: every saved file gets the next one.
  let saved = 0;
  let wakeWorker: () => void = () => undefined;
  let paused = false;

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;

  const fake: ComfyFake = {
    name: opts.name ?? "comfyui",
    url: `http://127.0.0.1:${port}`,
    mode: "ok",
    get paused() {
      return paused;
    },
    // Unpausing wakes the prompt worker, as a GPU coming free would: queued prompts run without a new one.
    set paused(value: boolean) {
      paused = value;
      if (!value) wakeWorker();
    },
    stepDelayMs: 0,
    externalQueue: 0,
    requests: [],
    prompts: [],
    uploads: new Map(),
    violations: [],
    upscaleModels: new Map(DEFAULT_UPSCALE_MODELS),
    faceNodes: true,
    faceModels: [...DEFAULT_FACE_MODELS],
    saved: [],
    socketsOpened: 0,
    stepsSent: 0,
    previews: false,
    previewsSent: [],
    flood: { frameBytes: 512 * 1024, maxMs: 5_000, framesSent: 0, bytesSent: 0, lastedMs: 0 },
    busy: () => pending.length + (running ? 1 : 0),
    mostBusy: 0,
    reset: () => {
      fake.mostBusy = 0;
      fake.mode = "ok";
      fake.paused = false;
      fake.stepDelayMs = 0;
      fake.externalQueue = 0;
      fake.requests = [];
      fake.prompts = [];
      fake.uploads.clear();
      fake.violations = [];
      fake.upscaleModels = new Map(DEFAULT_UPSCALE_MODELS);
      fake.faceNodes = true;
      fake.faceModels = [...DEFAULT_FACE_MODELS];
      fake.saved = [];
      fake.socketsOpened = 0;
      fake.stepsSent = 0;
      fake.previews = false;
      fake.previewsSent = [];
      fake.flood = { frameBytes: 512 * 1024, maxMs: 5_000, framesSent: 0, bytesSent: 0, lastedMs: 0 };
      wakeWorker();
    },
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      for (const c of connections) c.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const queueInfo = () => ({ exec_info: { queue_remaining: fake.busy() + fake.externalQueue } });
  const send = (sid: string | undefined, type: string, data: unknown) => {
    const targets = sid === undefined ? [...sockets.values()] : [sockets.get(sid)].filter(Boolean);
    for (const ws of targets) if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type, data }));
  };
  const queueUpdated = () => send(undefined, "status", { status: queueInfo() });
  const authorized = (headers: http.IncomingHttpHeaders) =>
    !opts.authHeader || headers[opts.authHeader.name.toLowerCase()] === opts.authHeader.value;
  /** The route path, or undefined for a path this server does not serve (the /api/ aliases are absent on legacy). */
  const routeOf = (pathname: string) => {
    if (pathname.startsWith("/api/")) return opts.legacy ? undefined : pathname.slice(4);
    return pathname;
  };

  server.on("connection", (c) => {
    connections.add(c);
    c.on("close", () => connections.delete(c));
  });

  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", fake.url);
    if (routeOf(url.pathname) !== "/ws" || !authorized(req.headers)) {
      socket.end(
        `HTTP/1.1 ${authorized(req.headers) ? "404 Not Found" : "401 Unauthorized"}\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      fake.socketsOpened++;
      const sid = url.searchParams.get("clientId") || randomUUID().replace(/-/g, "");
      sockets.get(sid)?.terminate();
      sockets.set(sid, ws);
      let first = true;
      metadataClients.delete(sid);
      ws.on("message", (raw, isBinary) => {
        if (isBinary || !first) return;
        first = false;
        try {
          const data = JSON.parse(raw.toString());
          if (data?.type !== "feature_flags" || opts.legacy) return;
          if (data.data?.supports_preview_metadata === true) metadataClients.add(sid);
          ws.send(
            JSON.stringify({
              type: "feature_flags",
              data: { supports_preview_metadata: true, max_upload_size: 104857600 },
            }),
          );
        } catch {
          // server.py logs invalid JSON and goes on.
        }
      });
      ws.on("close", () => {
        if (sockets.get(sid) === ws) {
          sockets.delete(sid);
          metadataClients.delete(sid);
        }
      });
      ws.send(JSON.stringify({ type: "status", data: { status: queueInfo(), sid } }));
    });
  });

  server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", fake.url);
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString("utf8");
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const type = req.headers["content-type"] ?? "";
      if (/^multipart\/form-data/i.test(type)) {
        body = await new Request("http://fake/", {
          method: "POST",
          headers: { "content-type": type },
          body: new Uint8Array(bytes),
        })
          .formData()
          .catch(() => undefined);
      }
      fake.requests.push({
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(value));
      };
      const empty = (status: number) => {
        res.writeHead(status, { "Content-Length": 0 });
        res.end();
      };
      if (!authorized(req.headers)) return empty(401);
      const route = routeOf(url.pathname);
      const key = `${req.method} ${route}`;
      const historyMatch = route ? /^\/history\/([^/]+)$/.exec(route) : null;
      if (key === "GET /prompt") return json(200, queueInfo());
      if (key === "POST /prompt") return postPrompt(body, json);
      if (key === "GET /queue") return json(200, { queue_running: running ? [running] : [], queue_pending: pending });
      if (key === "POST /queue") {
        const data = (body ?? {}) as { delete?: unknown; clear?: unknown };
        if (data.clear) pending = [];
        if (Array.isArray(data.delete))
          pending = pending.filter((item) => !(data.delete as unknown[]).includes(item[1]));
        queueUpdated();
        return empty(200);
      }
      if (key === "POST /interrupt") {
        const target = (body as { prompt_id?: unknown } | undefined)?.prompt_id;
        if (running && (target === undefined || target === running[1])) interruptFlag = true;
        return empty(200);
      }
      if (req.method === "GET" && historyMatch) {
        const entry = history.get(decodeURIComponent(historyMatch[1]));
        return json(200, entry ? { [decodeURIComponent(historyMatch[1])]: entry } : {});
      }
      if (key === "GET /view") return view(url.searchParams, res);
      if (key === "POST /upload/image") return uploadImage(body, json);
      if (key === "GET /object_info") return json(200, objectInfo());
      const infoMatch = route ? /^\/object_info\/([^/]+)$/.exec(route) : null;
      if (req.method === "GET" && infoMatch) {
        const node = decodeURIComponent(infoMatch[1]);
        const all = objectInfo();
        return json(200, all[node] ? { [node]: all[node] } : {});
      }
      return empty(404);
    });
  });

  async function postPrompt(body: unknown, json: (status: number, value: unknown) => void) {
    const data = (body ?? {}) as { prompt?: unknown; client_id?: unknown };
    if (fake.mode === "http-error") return json(500, { error: "simulated server error" });
    if (typeof data.prompt !== "object" || data.prompt === null) {
      return json(400, {
        error: { type: "no_prompt", message: "No prompt provided", details: "", extra_info: {} },
        node_errors: {},
      });
    }
    const prompt = data.prompt as Record<string, Node>;
    const invalid = validatePrompt(prompt);
    if (invalid) return json(400, invalid);
    checkPrompt(prompt);
    const outputs = Object.keys(prompt).filter((id) => OUTPUT_NODES.has(prompt[id]?.class_type));
    if (outputs.length === 0) {
      return json(400, {
        error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
        node_errors: [],
      });
    }
    if (fake.mode === "reject") {
      const loader = Object.keys(prompt).find((id) => prompt[id].class_type === "CheckpointLoaderSimple") ?? outputs[0];
      return json(400, notInList(loader, prompt[loader].class_type, "ckpt_name: not in []", outputs));
    }
    const id = randomUUID();
    const clientId = typeof data.client_id === "string" ? data.client_id : undefined;
    if (fake.mode === "flood" && clientId) {
      await flood(clientId);
      return json(200, { prompt_id: id, number: number++, node_errors: {} });
    }
    if (clientId === undefined) fake.violations.push("POST /prompt without client_id");
    fake.prompts.push({ id, prompt, clientId });
    pending.push([number++, id, prompt, clientId ? { client_id: clientId } : {}, outputs]);
    fake.mostBusy = Math.max(fake.mostBusy, fake.busy());
    queueUpdated();
    wakeWorker();
    return json(200, { prompt_id: id, number: number - 1, node_errors: {} });
  }

  /** server.py's image_upload: a multipart `image` file (plus type, subfolder, overwrite) into the input folder. */
  async function uploadImage(body: unknown, json: (status: number, value: unknown) => void) {
    if (!(body instanceof FormData)) return json(400, { error: "expected multipart/form-data" });
    const image = body.get("image");
    if (!(image instanceof File) || image.name === "") return json(400, { error: "no image" });
    const kind = String(body.get("type") ?? "input");
    if (kind !== "input") fake.violations.push(`upload type ${kind}, expected input`);
    const bytes = Buffer.from(await image.arrayBuffer());
    const meta = await sharp(bytes)
      .metadata()
      .catch(() => null);
    if (!meta?.width || !meta.height) return json(400, { error: "not an image" });
    fake.uploads.set(image.name, { width: meta.width, height: meta.height, hasAlpha: meta.hasAlpha === true });
    return json(200, { name: image.name, subfolder: "", type: "input" });
  }

  /** node_info of the nodes enhancement uses: input.required with combo lists as [[values…]], as server.py sends. */
  function objectInfo(): Record<string, { input: { required: Record<string, unknown[]> }; output: string[] }> {
    const node = (required: Record<string, unknown[]>, output: string[]) => ({
      input: { required },
      input_order: { required: Object.keys(required) },
      output,
      output_is_list: output.map(() => false),
      output_name: output,
      name: "",
      display_name: "",
      description: "",
      python_module: "nodes",
      category: "",
      output_node: output.length === 0,
    });
    const int = ["INT", { default: 512, min: 0, max: 16384, step: 1 }];
    const info: Record<string, ReturnType<typeof node>> = {
      LoadImage: node({ image: [[...fake.uploads.keys()], { image_upload: true }] }, ["IMAGE", "MASK"]),
      SaveImage: node({ images: ["IMAGE"], filename_prefix: ["STRING", { default: "ComfyUI" }] }, []),
      UpscaleModelLoader: node({ model_name: [[...fake.upscaleModels.keys()]] }, ["UPSCALE_MODEL"]),
      ImageUpscaleWithModel: node({ upscale_model: ["UPSCALE_MODEL"], image: ["IMAGE"] }, ["IMAGE"]),
      ImageScale: node(
        { image: ["IMAGE"], upscale_method: [SCALE_METHODS], width: int, height: int, crop: [CROP_METHODS] },
        ["IMAGE"],
      ),
    };
    if (fake.faceNodes) {
      info.FaceRestoreModelLoader = node({ model_name: [[...fake.faceModels]] }, ["FACERESTORE_MODEL"]);
      info.FaceRestoreCFWithModel = node(
        {
          facerestore_model: ["FACERESTORE_MODEL"],
          image: ["IMAGE"],
          facedetection: [FACE_DETECTORS],
          codeformer_fidelity: ["FLOAT", { default: 0.5, min: 0.0, max: 1, step: 0.05 }],
        },
        ["IMAGE"],
      );
    }
    return info;
  }

  /**
   * execution.py's validate_prompt for the enhance nodes: a class the server lacks is invalid_prompt; a combo value
   * not in its list fails the output's validation (value_not_in_list), as the real server answers both.
   */
  function validatePrompt(prompt: Record<string, Node>): unknown {
    const info = objectInfo();
    const enhanceNodes = new Set([
      "UpscaleModelLoader",
      "ImageUpscaleWithModel",
      "ImageScale",
      "FaceRestoreModelLoader",
      "FaceRestoreCFWithModel",
    ]);
    for (const [id, node] of Object.entries(prompt)) {
      if (!enhanceNodes.has(node?.class_type)) continue;
      const spec = info[node.class_type];
      if (!spec) {
        return {
          error: {
            type: "invalid_prompt",
            message: `Cannot execute because node ${node.class_type} does not exist.`,
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          node_errors: {},
        };
      }
      const fields = Object.keys(spec.input.required).sort();
      const sent = Object.keys(node.inputs ?? {}).sort();
      if (fields.join() !== sent.join()) {
        fake.violations.push(`${node.class_type} inputs ${sent.join(",")}, expected ${fields.join(",")}`);
      }
      for (const [field, declared] of Object.entries(spec.input.required)) {
        const value = node.inputs?.[field];
        if (Array.isArray(declared[0]) && !(declared[0] as unknown[]).includes(value)) {
          const list = JSON.stringify(declared[0]);
          return notInList(id, node.class_type, `${field}: '${String(value)}' not in ${list}`, []);
        }
        if (declared[0] === "INT" && !Number.isInteger(value)) {
          fake.violations.push(`${node.class_type} ${field} is not an integer`);
        }
        if (declared[0] === "FLOAT" && (typeof value !== "number" || value < 0 || value > 1)) {
          fake.violations.push(`${node.class_type} ${field}=${String(value)} is not a FLOAT in [0, 1]`);
        }
        const linkType = typeof declared[0] === "string" && /^[A-Z_]+$/.test(declared[0]) && declared[0] !== "INT";
        if (linkType && declared[0] !== "FLOAT" && declared[0] !== "STRING") {
          const linked = Array.isArray(value) && value.length === 2 && prompt[String(value[0])] !== undefined;
          if (!linked) fake.violations.push(`${node.class_type} ${field} is not a link to another node`);
        }
      }
    }
    return undefined;
  }

  function checkPrompt(prompt: Record<string, Node>) {
    const text = JSON.stringify(prompt);
    if (/\{\{[^}]*\}\}/.test(text)) fake.violations.push(`unfilled placeholder in ${text.slice(0, 200)}`);
    for (const [id, node] of Object.entries(prompt)) {
      if (typeof node?.class_type !== "string" || typeof node.inputs !== "object") {
        fake.violations.push(`node ${id} is not { class_type, inputs }`);
        continue;
      }
      if (node.class_type === "KSampler") {
        for (const field of ["seed", "steps"]) {
          if (!Number.isInteger(node.inputs[field])) fake.violations.push(`KSampler ${field} is not an integer`);
        }
      }
      if (node.class_type === "LoadImage" && !fake.uploads.has(String(node.inputs.image))) {
        fake.violations.push(`LoadImage names ${String(node.inputs.image)}, which was never uploaded`);
      }
      if (node.class_type === "SetLatentNoiseMask" || node.class_type === "VAEEncodeForInpaint") {
        const loader = prompt[String((node.inputs.mask as unknown[])?.[0])];
        const upload = fake.uploads.get(String(loader?.inputs.image));
        if (loader?.class_type !== "LoadImage" || !upload?.hasAlpha) {
          fake.violations.push(`${node.class_type}: mask must come from LoadImage of an image with alpha`);
        }
      }
      if (LATENT_NODES.has(node.class_type)) {
        for (const field of ["width", "height"]) {
          const v = node.inputs[field];
          if (!Number.isInteger(v) || (v as number) % 8 !== 0)
            fake.violations.push(`${node.class_type} ${field}=${String(v)}`);
        }
      }
    }
  }

  function view(query: URLSearchParams, res: http.ServerResponse) {
    const filename = query.get("filename") ?? "";
    if (filename === "" || filename.startsWith("/") || filename.includes("..")) {
      res.writeHead(400);
      return res.end();
    }
    const bytes = files.get(`${query.get("type") ?? "output"}/${query.get("subfolder") ?? ""}/${filename}`);
    if (!bytes) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, {
      "Content-Type": "image/png",
      "Content-Length": bytes.length,
      "Content-Disposition": `filename="${filename}"`,
    });
    res.end(bytes);
  }

  /** The single prompt worker of main.py: one prompt at a time, in queue order. */
  async function worker() {
    for (;;) {
      if (paused || pending.length === 0) {
        await new Promise<void>((r) => {
          wakeWorker = r;
        });
        continue;
      }
      running = pending.shift();
      interruptFlag = false;
      queueUpdated();
      if (running) await execute(running);
      running = undefined;
      queueUpdated();
    }
  }

  async function execute(item: QueueItem) {
    const [, promptId, prompt, extra] = item;
    const sid = extra.client_id;
    const messages: [string, unknown][] = [];
    const message = (type: string, data: Record<string, unknown>) => {
      const stamped = { ...data, prompt_id: promptId, timestamp: Date.now() };
      messages.push([type, stamped]);
      send(sid, type, stamped);
    };
    const outputs: HistoryEntry["outputs"] = {};
    const executed: string[] = [];
    const mode = fake.mode;
    message("execution_start", {});
    message("execution_cached", { nodes: [] });
    let failed: "error" | "interrupted" | undefined;
    for (const id of topologicalOrder(prompt)) {
      const node = prompt[id];
      send(sid, "executing", { node: id, display_node: id, prompt_id: promptId });
      const stepped = node.class_type === "KSampler" || node.class_type === "ImageUpscaleWithModel";
      if (stepped) {
        const steps = node.class_type === "KSampler" ? Number(node.inputs.steps) : UPSCALE_TILES;
        for (let step = 1; step <= steps; step++) {
          if (fake.stepDelayMs > 0) await new Promise((r) => setTimeout(r, fake.stepDelayMs));
          if (interruptFlag) {
            failed = "interrupted";
            message("execution_interrupted", { node_id: id, node_type: node.class_type, executed: [...executed] });
            break;
          }
          if (mode === "error" && step === Math.ceil(steps / 2)) {
            failed = "error";
            message("execution_error", {
              node_id: id,
              node_type: node.class_type,
              executed: [...executed],
              exception_message: "Allocation on device 0 would exceed allowed memory. (out of memory)",
              exception_type: "torch.OutOfMemoryError",
              traceback: ['  File "execution.py", line 1, in execute\n'],
              current_inputs: {},
              current_outputs: [],
            });
            break;
          }
          send(sid, "progress", { value: step, max: steps, prompt_id: promptId, node: id });
          fake.stepsSent++;
          if (fake.previews && node.class_type === "KSampler") {
            await sendPreview(sid, promptId, id, step, steps, fake.previews, prompt);
          }
          if (mode === "drop-ws" && step === Math.min(2, steps) && sid) sockets.get(sid)?.terminate();
        }
        if (failed) break;
      }
      if (OUTPUT_NODES.has(node.class_type)) {
        const { width, height } = imageSizeOf(prompt, id, fake.uploads, fake.upscaleModels);
        fake.saved.push({
          node: id,
          width,
          height,
          upscaled: upscaledSizeOf(prompt, fake.uploads, fake.upscaleModels),
        });
        const type = node.class_type === "SaveImage" ? "output" : "temp";
        const prefix = String(node.inputs.filename_prefix ?? "ComfyUI");
        const subfolder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
        const filename = `${prefix.slice(prefix.lastIndexOf("/") + 1)}_${String(++saved).padStart(5, "0")}_.png`;
        files.set(`${type}/${subfolder}/${filename}`, await pngOf(width, height));
        const output = { images: [{ filename, subfolder, type }] };
        outputs[id] = output;
        send(sid, "executed", { node: id, display_node: id, output, prompt_id: promptId });
      }
      executed.push(id);
    }
    if (!failed) message("execution_success", {});
    history.set(promptId, {
      prompt: item,
      outputs,
      status: { status_str: failed ? "error" : "success", completed: !failed, messages },
      meta: {},
    });
    running = undefined;
    queueUpdated();
    send(sid, "executing", { node: null, prompt_id: promptId });
  }

  /**
   * Sends the same large frame to the client's socket, a few in flight at a time, until the client closes it or
   * `maxMs` passes: what the audit's hostile server did (+752 MB in the client in 5 s).
   */
  async function flood(sid: string) {
    const ws = sockets.get(sid);
    const frame = fake.flood.binary
      ? Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 1]), Buffer.alloc(fake.flood.frameBytes, 0xff)])
      : JSON.stringify({
          type: "progress",
          data: { value: 1, max: 30, node: "3", prompt_id: randomUUID(), padding: "x".repeat(fake.flood.frameBytes) },
        });
    const started = Date.now();
    let inFlight = 0;
    while (ws?.readyState === WebSocket.OPEN && Date.now() - started < fake.flood.maxMs) {
      if (inFlight >= 8) {
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      inFlight++;
      fake.flood.framesSent++;
      fake.flood.bytesSent += frame.length;
      ws.send(frame, () => inFlight--);
    }
    fake.flood.lastedMs = Date.now() - started;
  }

  /** The progress hook's preview: latent-sized (1/8 of the image), its grey level the step's share of the run. */
  async function sendPreview(
    sid: string | undefined,
    promptId: string,
    node: string,
    step: number,
    steps: number,
    format: "JPEG" | "PNG",
    prompt: Record<string, Node>,
  ) {
    const ws = sid === undefined ? undefined : sockets.get(sid);
    if (!sid || ws?.readyState !== WebSocket.OPEN) return;
    const { width, height } = latentSizeOf(prompt, fake.uploads);
    const image = await comfyPreviewImage(step, steps, format, Math.max(8, width >> 3), Math.max(8, height >> 3));
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(n);
      return b;
    };
    if (metadataClients.has(sid)) {
      const metadata = Buffer.from(
        JSON.stringify({
          node_id: node,
          prompt_id: promptId,
          display_node_id: node,
          parent_node_id: null,
          real_node_id: node,
          image_type: format === "PNG" ? "image/png" : "image/jpeg",
        }),
      );
      ws.send(Buffer.concat([u32(4), u32(metadata.length), metadata, image]));
      fake.previewsSent.push({ event: 4, step });
    } else {
      ws.send(Buffer.concat([u32(1), u32(format === "PNG" ? 2 : 1), image]));
      fake.previewsSent.push({ event: 1, step });
    }
  }

  void worker();
  return fake;
}

/** validate_prompt's answer for a combo value that is not in the node's list (value_not_in_list). */
function notInList(id: string, classType: string, details: string, outputs: string[]) {
  return {
    error: {
      type: "prompt_outputs_failed_validation",
      message: "Prompt outputs failed validation",
      details: "",
      extra_info: {},
    },
    node_errors: {
      [id]: {
        errors: [{ type: "value_not_in_list", message: "Value not in list", details, extra_info: {} }],
        dependent_outputs: outputs,
        class_type: classType,
      },
    },
  };
}

/** A preview whose grey level is step/steps of white, so a reader can tell the order previews were made in. */
export function comfyPreviewImage(
  step: number,
  steps: number,
  format: "JPEG" | "PNG",
  width = 64,
  height = 64,
): Promise<Buffer> {
  const level = Math.round((255 * step) / steps);
  const img = sharp({ create: { width, height, channels: 3, background: { r: level, g: level, b: level } } });
  return (format === "PNG" ? img.png() : img.jpeg({ quality: 95 })).toBuffer();
}

function latentSizeOf(
  prompt: Record<string, Node>,
  uploads: Map<string, { width: number; height: number }>,
): { width: number; height: number } {
  // Image-to-image renders at the loaded image's size.
  const loaded = Object.values(prompt).find((n) => n.class_type === "LoadImage");
  const upload = loaded && uploads.get(String(loaded.inputs.image));
  if (upload) return upload;
  const latent = Object.values(prompt).find((n) => LATENT_NODES.has(n.class_type));
  return { width: Number(latent?.inputs.width ?? 512), height: Number(latent?.inputs.height ?? 512) };
}

/**
 * The size of the image a node gives: an upscale model multiplies by its factor, ImageScale makes its width × height
 * (one of them 0 keeps the aspect ratio, both 0 the size), face restoration keeps the size; generation graphs render
 * at their latent's (or loaded image's) size.
 */
function imageSizeOf(
  prompt: Record<string, Node>,
  id: string,
  uploads: Map<string, { width: number; height: number }>,
  models: Map<string, number>,
): { width: number; height: number } {
  const node = prompt[id];
  const input = (field: string) => {
    const link = node?.inputs[field];
    return Array.isArray(link) && typeof link[0] === "string" ? imageSizeOf(prompt, link[0], uploads, models) : null;
  };
  if (node?.class_type === "LoadImage") {
    return uploads.get(String(node.inputs.image)) ?? latentSizeOf(prompt, uploads);
  }
  if (node?.class_type === "ImageUpscaleWithModel") {
    const from = input("image") ?? { width: 512, height: 512 };
    const loader = prompt[String((node.inputs.upscale_model as unknown[])?.[0])];
    const factor = models.get(String(loader?.inputs.model_name)) ?? 1;
    return { width: from.width * factor, height: from.height * factor };
  }
  if (node?.class_type === "ImageScale") {
    const from = input("image") ?? { width: 512, height: 512 };
    const w = Number(node.inputs.width);
    const h = Number(node.inputs.height);
    if (w === 0 && h === 0) return from;
    return {
      width: w === 0 ? Math.max(1, Math.round((from.width * h) / from.height)) : w,
      height: h === 0 ? Math.max(1, Math.round((from.height * w) / from.width)) : h,
    };
  }
  if (node && (OUTPUT_NODES.has(node.class_type) || node.class_type === "FaceRestoreCFWithModel")) {
    const from = input(OUTPUT_NODES.has(node.class_type) ? "images" : "image");
    if (from) return from;
  }
  return latentSizeOf(prompt, uploads);
}

/** What ImageUpscaleWithModel made in this graph, if it has one. */
function upscaledSizeOf(
  prompt: Record<string, Node>,
  uploads: Map<string, { width: number; height: number }>,
  models: Map<string, number>,
): { width: number; height: number } | undefined {
  const id = Object.keys(prompt).find((i) => prompt[i].class_type === "ImageUpscaleWithModel");
  return id === undefined ? undefined : imageSizeOf(prompt, id, uploads, models);
}

/** Nodes after the nodes their inputs link to ([id, slot] pairs), as the executor runs them. */
function topologicalOrder(prompt: Record<string, Node>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id) || !prompt[id]) return;
    seen.add(id);
    for (const value of Object.values(prompt[id].inputs)) {
      if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string") visit(value[0]);
    }
    order.push(id);
  };
  for (const id of Object.keys(prompt)) visit(id);
  return order;
}
