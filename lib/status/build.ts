// The status record: health, the caller's daily counters, and the published models and styles.

import type { Plan } from "@/lib/auth/types";
import { DEFAULT_ENHANCE_MODE, ENHANCE_MODES, type EnhanceMode, IN_PROCESS_MODES } from "@/lib/catalog/enhance-modes";
import { modeLicenceNotes } from "@/lib/catalog/enhance-routes";
import { MODELS, RATIOS } from "@/lib/catalog/models";
import { STYLE_PRESETS } from "@/lib/catalog/styles";
import type { Config } from "@/lib/config";
import type { Engines } from "@/lib/engines";
import { everyServerOut } from "@/lib/engines/local/pool";
import type { Enhancer } from "@/lib/enhance/engine-registry";
import type { EnhanceRoutes } from "@/lib/enhance/routes/remote-chain";
import type { Usage } from "@/lib/quota/types";
import { API_REVISION, API_VERSION, type StatusResponse } from "@/lib/schemas/status";
import type { DiskCheck } from "@/lib/status/disk";

export const STATUS_STYLES = STYLE_PRESETS.map((s) => ({ name: s.name, description: s.description }));
// The style catalogue is the bulk of the record and never changes, so it is encoded once.
const STYLES_JSON = JSON.stringify(STATUS_STYLES);

/** JSON text of a status record, with the constant style catalogue spliced in rather than re-encoded. */
export function serializeStatus(body: Record<string, unknown>): string {
  const { styles, ...rest } = body;
  if (styles !== STATUS_STYLES) return JSON.stringify(body);
  return `${JSON.stringify(rest).slice(0, -1)},"styles":${STYLES_JSON}}`;
}

export type StatusInput = {
  plan: Plan;
  /** The counter `usage_today` reports on: Free generations, or the Pro key's requests. */
  usage: Usage;
  /** Free only: the separate enhancement counter. */
  enhanceUsage?: Usage;
  /** False when the store could not be read; the record then still answers, marked degraded. */
  storeHealthy: boolean;
  /** Free space on DATA_DIR, when checked. */
  disk?: DiskCheck | null;
  /** Why the image storage fails its check (from createStorageHealth), or null when it answers. */
  storageProblem?: string | null;
  /** The work tier's live workers (null: inline, no workers to count), or why they could not be counted. */
  workTier?: { workers_alive: number | null; error?: string } | null;
  config: Config;
  engines: Pick<Engines, "describe" | "describeGpuPools">;
  enhancer: Pick<Enhancer, "describe">;
  enhanceRoutes: Pick<EnhanceRoutes, "describe">;
};

export function buildStatus(input: StatusInput): StatusResponse {
  const { plan, usage, enhanceUsage, storeHealthy, disk, config } = input;
  const engines = input.engines.describe();
  const enhanceEngine = input.enhancer.describe();
  const reasons: string[] = [];
  if (!storeHealthy) reasons.push("The quota store cannot be reached.");
  // A provider whose last calls all failed degrades the service as much as a store outage does.
  const enhanceRoutes = remoteEnhanceRoutes(input.enhanceRoutes);
  const failing = [
    ...engines.flatMap((m) => m.routes.filter((r) => r.failing).map((r) => `${m.name} (${r.route})`)),
    ...enhanceRoutes.filter((r) => r.failing).map((r) => `${r.mode} (${r.route})`),
  ];
  if (failing.length > 0) reasons.push(`Provider routes failing: ${failing.join(", ")}.`);
  const pools = input.engines.describeGpuPools();
  const down = pools.filter((p) => everyServerOut(p.servers)).map((p) => p.kind);
  if (down.length > 0) reasons.push(`No GPU server answering in the pool: ${down.join(", ")}.`);
  if (input.storageProblem) reasons.push(input.storageProblem);
  const tier = input.workTier;
  if (tier?.error) reasons.push(tier.error);
  else if (tier?.workers_alive === 0) {
    reasons.push("No live workers: jobs wait in the work queue until a worker starts (npm run worker).");
  }
  if (disk?.low) {
    reasons.push(
      `Low disk space: ${disk.freeMb} MB free on DATA_DIR, below MIN_FREE_DISK_MB (${disk.minFreeMb} MB); new images may fail until space is freed.`,
    );
  }
  return {
    status: reasons.length === 0 ? "ok" : "degraded",
    degraded_reasons: reasons,
    version: API_VERSION,
    api_revision: API_REVISION,
    usage_today: usage.used,
    limit_today: usage.limit,
    remaining: usage.remaining,
    reset_at: new Date(usage.resetMs).toISOString(),
    plan,
    ...(enhanceUsage && {
      enhance: { usage_today: enhanceUsage.used, limit_today: enhanceUsage.limit, remaining: enhanceUsage.remaining },
    }),
    models: engines.map((m) => ({
      ...m,
      family: MODELS[m.name].family,
      description: MODELS[m.name].description,
    })),
    ...(pools.length > 0 && { gpu_pools: pools }),
    styles: STATUS_STYLES,
    ratios: [...RATIOS],
    upload: { max_bytes: config.upload.maxBytes, max_pixels: config.upload.maxPixels },
    enhance_modes: describeEnhanceModeRows(enhanceEngine, config.enhance),
    enhance_engine: enhanceEngine,
    enhance_routes: enhanceRoutes,
  };
}

/** Whether a route restores faces with ENHANCE_FACE_RESTORER's model (an operator's workflow chooses its own). */
/** The enhance modes' cloud and GPU routes with their health, as each model's routes are listed (onnx steps run in
 * process: enhance_engine covers them). */
function remoteEnhanceRoutes(routes: Pick<EnhanceRoutes, "describe">): StatusResponse["enhance_routes"] {
  return routes
    .describe()
    .flatMap((chain) =>
      chain.routes
        .filter((r) => !r.route.startsWith("onnx:"))
        .map((r) => ({ mode: chain.mode, route: r.route, failing: r.failing })),
    );
}

/**
 * One entry per mode of the table, from its chain (ENHANCE_<MODE>, or the in-process defaults): an onnx route names
 * the network the engine runs (an operator file when ENHANCE_MODEL_PATH replaces it); a mode with no route is listed
 * and marked unavailable. Face models carry their licence terms.
 */
function describeEnhanceModeRows(
  engine: StatusResponse["enhance_engine"],
  { chains, faceRestorer }: Pick<Config["enhance"], "chains" | "faceRestorer">,
): StatusResponse["enhance_modes"] {
  return ENHANCE_MODES.map((row) => {
    const chain = chains[row.name];
    const engines = chain.map((spec) =>
      spec.kind === "onnx" ? `onnx:${engine.models[modeOfNetwork(spec.target)] ?? spec.target}` : spec.id,
    );
    const notes = modeLicenceNotes(row.name, chain, faceRestorer, engines);
    return {
      name: row.name,
      label: row.label,
      available: chain.length > 0,
      engines,
      ai: chain.some((spec) => spec.kind !== "onnx") || (chain.length > 0 && engine.ai),
      generative: row.generative,
      ...(notes && { licence_notes: notes }),
    };
  });
}

/** The in-process mode whose network an onnx route names. */
function modeOfNetwork(network: string): EnhanceMode {
  return IN_PROCESS_MODES.find((m) => m.package === network)?.name ?? DEFAULT_ENHANCE_MODE;
}
