// ENHANCE_<MODE>: each enhance mode's fallback chain, as MODEL_* is each model's (contract 1.3). A route is
// `kind:rest`, the rest everything after the first colon. Unset, fast and quality run the in-process networks and
// faces and creative have no route. Validated at start: a bad route stops the server with the variable named.
import { ENHANCE_MODES, ENHANCE_PACKAGES, type EnhanceModeName } from "@/lib/catalog/enhance-modes";
import { LOCAL_ENV, PROVIDER_ENV } from "@/lib/catalog/providers";

/** The route kinds an enhance chain takes, and whether this version runs them. */
export const ENHANCE_ROUTE_KINDS = {
  onnx: "in process (esrgan-slim, esrgan-medium)",
  stability: "Stability's v2beta upscalers (fast, conservative, creative)",
  replicate: "a Replicate model, or a Cog server through REPLICATE_BASE_URL",
  fal: "a fal endpoint",
  a1111: "an upscaler on the AUTOMATIC1111-compatible servers of A1111_URLS",
  comfyui: "an upscale model file (or workflow:<name>) on the ComfyUI servers of COMFYUI_URLS",
} as const;
export type EnhanceRouteKind = keyof typeof ENHANCE_ROUTE_KINDS;
/** The kinds that need a provider key (the cloud) or a server list (a1111, comfyui). */
export type NeedyKind = Exclude<EnhanceRouteKind, "onnx">;
/** Stability's upscalers by name. */
const STABILITY_UPSCALERS = ["fast", "conservative", "creative"];
/** `comfyui:workflow:<name>` runs the operator's COMFYUI_WORKFLOW_ENHANCE_<NAME>; any other target is a model file. */
export const COMFY_WORKFLOW_TARGET = "workflow:";
/** The in-process networks an onnx route names: the mode table's packages. */
export const ONNX_NETWORKS = ENHANCE_PACKAGES;
export type OnnxNetwork = (typeof ONNX_NETWORKS)[number];

export type EnhanceRouteSpec = { kind: EnhanceRouteKind; target: string; id: string };
export type EnhanceChains = Record<EnhanceModeName, EnhanceRouteSpec[]>;

/** The chains when no ENHANCE_<MODE> is set: a mode's in-process network from the mode table, or none. */
const DEFAULT_CHAINS = Object.fromEntries(
  ENHANCE_MODES.map((m) => [m.name, m.inProcess ? `onnx:${m.inProcess.package}` : undefined]),
) as Record<EnhanceModeName, string | undefined>;

/** The variable of a mode: ENHANCE_FACES for faces. */
export const enhanceVariableOf = (mode: EnhanceModeName) => `ENHANCE_${mode.toUpperCase()}`;

/**
 * Every mode's chain from its variable (or the default), and every problem found: an unknown kind, an onnx network
 * that is not shipped, a cloud route whose provider has no key, an a1111 or comfyui route without its server list
 * (`hasKey`), or a `comfyui:workflow:<name>` whose COMFYUI_WORKFLOW_ENHANCE_<NAME> is not set (`enhanceWorkflows`).
 */
export function parseEnhanceChains(
  values: Partial<Record<string, string>>,
  hasKey: (kind: NeedyKind) => boolean,
  enhanceWorkflows: readonly string[] = [],
): { chains: EnhanceChains; issues: { variable: string; message: string }[] } {
  const issues: { variable: string; message: string }[] = [];
  const chains = Object.fromEntries(
    ENHANCE_MODES.map(({ name: mode }) => {
      const variable = enhanceVariableOf(mode);
      const raw = values[variable]?.trim() || DEFAULT_CHAINS[mode] || "";
      const routes = raw
        .split(",")
        .map((r) => r.trim())
        .filter(Boolean)
        .flatMap((id) => {
          const problem = problemOf(id, hasKey, enhanceWorkflows);
          if (problem) issues.push({ variable, message: `${id}: ${problem}` });
          return problem ? [] : [specOf(id)];
        });
      return [mode, routes];
    }),
  ) as EnhanceChains;
  return { chains, issues };
}

function specOf(id: string): EnhanceRouteSpec {
  const colon = id.indexOf(":");
  return { kind: id.slice(0, colon) as EnhanceRouteKind, target: id.slice(colon + 1), id };
}

function problemOf(
  id: string,
  hasKey: (kind: NeedyKind) => boolean,
  enhanceWorkflows: readonly string[],
): string | undefined {
  const colon = id.indexOf(":");
  const kind = colon > 0 ? id.slice(0, colon) : "";
  const target = id.slice(colon + 1);
  if (!(kind in ENHANCE_ROUTE_KINDS) || target === "") {
    return `a route is kind:name, the kind one of ${Object.keys(ENHANCE_ROUTE_KINDS).join(", ")}`;
  }
  if (kind === "onnx") {
    return (ONNX_NETWORKS as readonly string[]).includes(target)
      ? undefined
      : `the in-process networks are ${ONNX_NETWORKS.join(" and ")}`;
  }
  if (kind === "stability" && !STABILITY_UPSCALERS.includes(target)) {
    return `Stability's upscalers are ${STABILITY_UPSCALERS.join(", ")}`;
  }
  if (kind === "a1111" || kind === "comfyui") {
    if (!hasKey(kind)) return `set ${enhanceNeedOf(kind)} to the servers to use it`;
    return kind === "comfyui" ? comfyTargetProblem(target, enhanceWorkflows) : undefined;
  }
  const cloud = kind as Exclude<NeedyKind, "a1111" | "comfyui">;
  return hasKey(cloud) ? undefined : `set ${enhanceNeedOf(cloud)} to use it`;
}

/** The variable a route kind needs set: its GPU servers' list, or its provider's key. */
export function enhanceNeedOf(kind: NeedyKind): string {
  return kind === "a1111" || kind === "comfyui" ? LOCAL_ENV[kind] : PROVIDER_ENV[kind].key;
}

/** A comfyui route's target: a workflow the operator set, or an upscale model file name. */
function comfyTargetProblem(target: string, enhanceWorkflows: readonly string[]): string | undefined {
  if (target.startsWith(COMFY_WORKFLOW_TARGET)) {
    const name = target.slice(COMFY_WORKFLOW_TARGET.length);
    if (enhanceWorkflows.includes(name)) return undefined;
    const variable = `COMFYUI_WORKFLOW_ENHANCE_${name.toUpperCase().replace(/-/g, "_")}`;
    return `no enhance workflow "${name}": set ${variable} to its API-format JSON file`;
  }
  if (/\p{Cc}/u.test(target) || target.length > 255) {
    return "must be an upscale model file name (no control characters, at most 255)";
  }
  return undefined;
}

/** Face restoration models' licence terms (contract 1.3), by what a route's name shows of its model. */
const FACE_MODEL_LICENCES: [RegExp, string][] = [
  [/gfpgan/i, "GFPGAN includes parts under non-commercial terms (see its licence)."],
  [/codeformer/i, "CodeFormer is under the S-Lab License 1.0: non-commercial use only."],
];

/**
 * The licence terms of the face models a mode's chain uses, or undefined when none does. `names` are what the routes
 * show of their models (their ids, or the network an onnx route runs); an a1111 or shipped comfyui route in `faces`
 * restores with ENHANCE_FACE_RESTORER, which its name does not show.
 */
export function modeLicenceNotes(
  mode: string,
  chain: readonly EnhanceRouteSpec[],
  faceRestorer: string,
  names: readonly string[] = chain.map((spec) => spec.id),
): string | undefined {
  const restores = mode === "faces" && chain.some(restoresWithSetting);
  return licenceNotesOf(restores ? [...names, faceRestorer] : names);
}

/** A start line for each enhance mode whose routes use a face model with licence terms (contract 1.3). */
export function licenceLines(chains: EnhanceChains, faceRestorer: string): string[] {
  return Object.entries(chains).flatMap(([mode, chain]) => {
    const notes = modeLicenceNotes(mode, chain, faceRestorer);
    return notes ? [`enhance mode ${mode}: ${notes}`] : [];
  });
}

const restoresWithSetting = (spec: EnhanceRouteSpec) =>
  spec.kind === "a1111" || (spec.kind === "comfyui" && !spec.target.startsWith(COMFY_WORKFLOW_TARGET));

/** The licence terms of the face models these routes use, or undefined when none does. */
function licenceNotesOf(routes: readonly string[]): string | undefined {
  const notes = FACE_MODEL_LICENCES.filter(([pattern]) => routes.some((r) => pattern.test(r))).map(([, n]) => n);
  return notes.length > 0 ? notes.join(" ") : undefined;
}
