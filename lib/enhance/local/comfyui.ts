// `comfyui:<upscale model file>`: a shipped workflow on the ComfyUI servers of COMFYUI_URLS. The photo goes up with
// POST /upload/image, then LoadImage → UpscaleModelLoader {model_name} → ImageUpscaleWithModel {upscale_model, image}
// (comfy_extras/nodes_upscale_model.py) → ImageScale {image, upscale_method, width, height, crop} to exactly the
// target (nodes.py) → SaveImage. In faces, facerestore_cf's FaceRestoreModelLoader {model_name} and
// FaceRestoreCFWithModel {facerestore_model, image, facedetection, codeformer_fidelity} restore the faces before the
// upscale. The model file is checked against GET /object_info/UpscaleModelLoader (and faces against the pack's nodes)
// on a server's first use: a file the server does not have ejects the route, a server without the pack ejects it
// for faces, each with a log line. `comfyui:workflow:<name>` runs the operator's COMFYUI_WORKFLOW_ENHANCE_<NAME>
// instead. Either runs as generation does: the same pool, websocket progress, cancel, /history and /view.
import { COMFY_WORKFLOW_TARGET } from "@/lib/catalog/enhance-routes";
import { ProviderError } from "@/lib/engines/failures";
import { comfyHeadersOf, prefixOf, probeQueue, runOnServer } from "@/lib/engines/local/comfyui";
import { CALL_TIMEOUT_MS, httpCall, jsonOf, LocalServerError, listedNames } from "@/lib/engines/local/http";
import type { PoolServer, ServerPool } from "@/lib/engines/local/pool";
import { previewSinkFor } from "@/lib/engines/local/previews";
import { reporterFor } from "@/lib/engines/local/progress";
import type { ComfyUiSettings } from "@/lib/engines/local/settings";
import { checkEnhanceWorkflow, fillWorkflow, type WorkflowGraph } from "@/lib/engines/local/workflow";
import enhanceFaces from "@/lib/engines/local/workflows/enhance-faces.json";
import enhanceUpscale from "@/lib/engines/local/workflows/enhance-upscale.json";
import { log } from "@/lib/log";
import { withDeadline } from "../remote/shared";
import type { EnhanceRoute, EnhanceRouteJob } from "../routes/types";

export type ComfyEnhanceDeps = { settings: ComfyUiSettings; pool: ServerPool; timeoutMs: number };

/** The shipped workflows' own placeholders, filled per request beside {{image}}, {{width}}, {{height}}, {{fidelity}}. */
const SHIPPED_PLACEHOLDERS = ["upscale_model", "face_model", "face_detection"];
const SHIPPED = {
  upscale: shipped("enhance-upscale", enhanceUpscale),
  faces: shipped("enhance-faces", enhanceFaces),
};
/** facerestore_cf's nodes that the faces workflow adds. */
const FACE_NODES = ["FaceRestoreModelLoader", "FaceRestoreCFWithModel"] as const;
/** The face model file for each ENHANCE_FACE_RESTORER: the first one listed whose name says it is that model. */
const FACE_MODEL_NAMES: Record<EnhanceRouteJob["faceRestorer"], RegExp> = {
  gfpgan: /gfpgan/i,
  codeformer: /codeformer/i,
};
/** FaceRestoreCFWithModel's own default face detector, used when the server lists it; else the first it lists. */
const FACE_DETECTION = "retinaface_resnet50";
/** An operator's workflow with a sampler invents detail: its answers say it is generative. */
const SAMPLER = /sampl/i;

function shipped(name: string, json: unknown): WorkflowGraph {
  const graph = checkEnhanceWorkflow(json, SHIPPED_PLACEHOLDERS);
  if (typeof graph === "string") throw new Error(`shipped workflow ${name} ${graph}`);
  return graph;
}

/** CodeFormer's fidelity from strength, the restorer's weight: 1 restores fully (fidelity 0), 0 keeps the face. */
export function fidelityOf(strength: number): number {
  return Math.round((1 - Math.min(1, Math.max(0, strength))) * 100) / 100;
}

export function createComfyUiEnhanceRoute(target: string, deps: ComfyEnhanceDeps): EnhanceRoute {
  const id = `comfyui:${target}`;
  const own = target.startsWith(COMFY_WORKFLOW_TARGET)
    ? deps.settings.enhanceWorkflows[target.slice(COMFY_WORKFLOW_TARGET.length)]
    : undefined;
  if (target.startsWith(COMFY_WORKFLOW_TARGET) && !own) throw new Error(`config refuses ${id} without its workflow`);
  const headers = comfyHeadersOf(deps.settings);
  const asked = (signal: AbortSignal) => ({ headers, pool: deps.pool, signal });
  /** Why the route is out for good (a model file its server lacks), and why it cannot restore faces, once known. */
  let ejected: string | undefined;
  let facesOut: string | undefined;

  const eject = (reason: string, mode?: "faces"): never => {
    if (mode) facesOut = reason;
    else ejected = reason;
    log.warn("enhance route ejected", { route: id, ...(mode && { mode }), reason });
    throw new ProviderError("http", `${id}: ${reason}`);
  };

  const graphFor = (server: PoolServer, job: EnhanceRouteJob, signal: AbortSignal) =>
    own
      ? fillWorkflow(own, {
          width: job.targetWidth,
          height: job.targetHeight,
          strength: job.strength,
          fidelity: fidelityOf(job.strength),
          prompt: job.prompt ?? "",
        })
      : shippedGraph(target, job, server.index, (node, field) => choicesOf(server, node, field, asked(signal)), eject);

  return {
    id,
    ai: true,
    generative: own ? Object.values(own).some((node) => SAMPLER.test(node.class_type)) : false,
    async run(job) {
      if (ejected) throw new ProviderError("http", `${id}: ejected: ${ejected}`);
      if (job.mode === "faces" && facesOut) throw new ProviderError("http", `${id}: ejected for faces: ${facesOut}`);
      const report = reporterFor(job);
      const previews = previewSinkFor({ requestId: job.requestId });
      return withDeadline(id, job.signal, deps.timeoutMs, (signal) => {
        const ctx = {
          requestId: job.requestId,
          signal,
          cancelled: () => job.signal.aborted,
          probe: (server: PoolServer) => probeQueue(server, headers, deps.pool, signal),
        };
        return deps.pool.run(ctx, async (server) => {
          const graph = await graphFor(server, job, signal);
          const [image] = await runOnServer(server, {
            graph,
            headers,
            signal,
            report,
            previews,
            pool: deps.pool,
            requestId: job.requestId,
            upload: async () => job.image,
            stepName: "upscaling tile",
          });
          return { image };
        });
      });
    },
    outReason(mode) {
      if (ejected) return ejected;
      if (mode === "faces" && facesOut) return facesOut;
      return deps.pool.outReason();
    },
  };
}

/** The shipped graph for a job, once the server is known to have the model file (and, for faces, the pack). */
async function shippedGraph(
  modelFile: string,
  job: EnhanceRouteJob,
  server: number,
  ask: (node: string, field: string) => Promise<string[] | null>,
  eject: (reason: string, mode?: "faces") => never,
): Promise<WorkflowGraph> {
  const models = await ask("UpscaleModelLoader", "model_name");
  if (!models?.includes(modelFile)) {
    eject(`server ${server} has no upscale model "${modelFile}" (it lists ${listedNames(models ?? [])})`);
  }
  const size = { upscale_model: modelFile, width: job.targetWidth, height: job.targetHeight };
  if (job.mode !== "faces") return fillWorkflow(SHIPPED.upscale, size);
  const [faceModels, detectors] = await Promise.all([
    ask(FACE_NODES[0], "model_name"),
    ask(FACE_NODES[1], "facedetection"),
  ]);
  if (!faceModels || !detectors) {
    return eject(
      `server ${server} cannot restore faces: it lacks ${FACE_NODES.join(" and ")} (facerestore_cf)`,
      "faces",
    );
  }
  const faceModel = faceModels.find((file) => FACE_MODEL_NAMES[job.faceRestorer].test(file));
  if (!faceModel) {
    return eject(
      `server ${server} cannot restore faces: no ${job.faceRestorer} model among its face models (it lists ${listedNames(faceModels)})`,
      "faces",
    );
  }
  return fillWorkflow(SHIPPED.faces, {
    ...size,
    face_model: faceModel,
    face_detection: detectors.includes(FACE_DETECTION) ? FACE_DETECTION : (detectors[0] ?? FACE_DETECTION),
    fidelity: fidelityOf(job.strength),
  });
}

/**
 * The values a node's combo input lists in GET /object_info/<node> (server.py's node_info: input.required[field] is
 * [[values…], {…}], or ["COMBO", { options: [values…] }] in the newer schema), learned once per server; null when the
 * server does not have the node (object_info then answers {}).
 */
async function choicesOf(
  server: PoolServer,
  node: string,
  field: string,
  { headers, pool, signal }: { headers: Record<string, string>; pool: ServerPool; signal: AbortSignal },
): Promise<string[] | null> {
  const fact = `comfyui object_info ${node} ${field}`;
  const known = server.facts.get(fact);
  if (known !== undefined) return known as string[] | null;
  const prefix = await prefixOf(server, headers, pool, signal);
  const path = `/object_info/${encodeURIComponent(node)}`;
  const reply = await httpCall(`${server.url}${prefix}${path}`, { headers, signal, timeoutMs: CALL_TIMEOUT_MS });
  if (reply.status !== 200) {
    throw new LocalServerError("http", `GET ${path} answered ${reply.status}`, { status: reply.status });
  }
  const info = (jsonOf(reply, `GET ${path}`) as Record<string, { input?: { required?: Record<string, unknown> } }>)[
    node
  ];
  const spec = info?.input?.required?.[field];
  const listed = Array.isArray(spec)
    ? Array.isArray(spec[0])
      ? spec[0]
      : spec[0] === "COMBO"
        ? (spec[1] as { options?: unknown } | undefined)?.options
        : undefined
    : undefined;
  if (info && !Array.isArray(listed)) {
    throw new LocalServerError("malformed", `GET ${path} lists no choices for ${field}`);
  }
  const choices = info ? (listed as unknown[]).filter((v): v is string => typeof v === "string") : null;
  server.facts.set(fact, choices);
  return choices;
}
