// The MODEL_* parser over the catalogue's routes, kept SDK-free so config can reject a bad chain at start.
import { MODEL_NAMES, MODELS, type ModelName } from "@/lib/catalog/models";
import {
  LOCAL_ENV,
  LOCAL_KINDS,
  type LocalKind,
  PROVIDER_ENV,
  PROVIDERS,
  type ProviderName,
} from "@/lib/catalog/providers";

export { LOCAL_ENV, LOCAL_KINDS, type LocalKind, PROVIDER_ENV, PROVIDERS, type ProviderName };

export const PREVIEW_ROUTE = "preview";

/** Tried before any cloud route when a model's variable is unset and COMFYUI_URLS is set. */
const LOCAL_DEFAULTS: Partial<Record<ModelName, string>> = {
  "gamma-xl-1024-v1-0": "comfyui:sdxl",
  "alpha-schnell": "comfyui:flux-schnell",
};

export type Route =
  | { id: typeof PREVIEW_ROUTE; provider: typeof PREVIEW_ROUTE; modelId: "" }
  | { id: string; provider: ProviderName; modelId: string }
  | { id: string; provider: LocalKind; modelId: string };

export type ProviderRouteEnv = {
  /** Provider credentials that are set (non-empty). */
  credentials: Partial<Record<ProviderName, string>>;
  /** Base-URL overrides that are set. */
  baseUrls: Partial<Record<ProviderName, string>>;
  /** Local GPU pools that are configured: ComfyUI's workflow names (shipped and the operator's), and A1111. */
  local?: { comfyuiWorkflows?: readonly string[]; a1111?: boolean };
};

const PREVIEW: Route = { id: PREVIEW_ROUTE, provider: PREVIEW_ROUTE, modelId: "" };
const REPLICATE_VERSION = /^[0-9a-f]{64}$/;

function isProvider(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

export function isLocalKind(name: string): name is LocalKind {
  return (LOCAL_KINDS as readonly string[]).includes(name);
}

/** Checks one `provider:model-id` entry for a model; returns the route or a message saying what is wrong. */
export function parseRoute(model: ModelName, entry: string, env: ProviderRouteEnv): Route | string {
  if (entry === PREVIEW_ROUTE) return PREVIEW;
  const colon = entry.indexOf(":");
  if (colon <= 0 || colon === entry.length - 1) return `"${entry}" is not of the form provider:model-id`;
  const provider = entry.slice(0, colon);
  const modelId = entry.slice(colon + 1);
  if (isLocalKind(provider)) return parseLocalRoute(entry, provider, modelId, env);
  if (!isProvider(provider))
    return `"${entry}": unknown provider "${provider}" (use one of ${[...PROVIDERS, ...LOCAL_KINDS].join(", ")}, or preview)`;
  if (!isSupported(model, provider, modelId, env)) {
    return `"${entry}" is not a route for ${model} (supported: ${MODELS[model].routes.join(", ")}, preview)`;
  }
  if (!env.credentials[provider]) return `"${entry}" needs ${PROVIDER_ENV[provider].key} to be set`;
  return { id: `${provider}:${modelId}`, provider, modelId };
}

/** Any model may take a local route: the operator decides which checkpoint stands behind a public name. */
function parseLocalRoute(entry: string, kind: LocalKind, name: string, env: ProviderRouteEnv): Route | string {
  if (kind === "comfyui") {
    const workflows = env.local?.comfyuiWorkflows;
    if (!workflows) return `"${entry}" needs ${LOCAL_ENV.comfyui} to be set`;
    if (!workflows.includes(name)) {
      const suffix = name.toUpperCase().replace(/-/g, "_");
      return `"${entry}": unknown ComfyUI workflow "${name}" (have: ${workflows.join(", ")}; add one with COMFYUI_WORKFLOW_${suffix}=<file>)`;
    }
  } else {
    if (!env.local?.a1111) return `"${entry}" needs ${LOCAL_ENV.a1111} to be set`;
    // A checkpoint title may hold spaces and brackets ("sd_xl_base_1.0.safetensors [31e35c80fc]").
    if (name.length > 255 || hasControlCharacters(name)) return `"${entry}": not a checkpoint name`;
  }
  return { id: `${kind}:${name}`, provider: kind, modelId: name };
}

export function hasControlCharacters(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

function isSupported(model: ModelName, provider: ProviderName, modelId: string, env: ProviderRouteEnv): boolean {
  // A compatible server (LocalAI, a gateway) names its own models, so any id is fine there.
  if (MODELS[model].anyIdBehindBaseUrl?.includes(provider) && env.baseUrls[provider])
    return /^[\w./:-]+$/.test(modelId);
  // Replicate routes may pin a version: owner/name:<64 hex>.
  const [base, version, ...rest] = modelId.split(":");
  if (rest.length > 0 || (version !== undefined && (provider !== "replicate" || !REPLICATE_VERSION.test(version))))
    return false;
  return MODELS[model].routes.includes(`${provider}:${base}`);
}

/** Parses one MODEL_* value into a fallback chain; returns every problem found. */
export function parseChain(
  model: ModelName,
  value: string,
  env: ProviderRouteEnv,
): { routes: Route[]; errors: string[] } {
  const entries = value.split(",").map((e) => e.trim());
  const routes: Route[] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    if (entry === "") {
      errors.push("has an empty entry; separate routes with single commas");
      continue;
    }
    const route = parseRoute(model, entry, env);
    if (typeof route === "string") errors.push(route);
    else if (routes.some((r) => r.id === route.id)) errors.push(`"${entry}" is listed twice`);
    else routes.push(route);
  }
  const previewAt = routes.findIndex((r) => r.provider === PREVIEW_ROUTE);
  // The preview renderer never fails, so anything after it could never run.
  if (previewAt >= 0 && previewAt < routes.length - 1) errors.push("preview never fails, so it must be the last route");
  return { routes, errors };
}

/**
 * The route used when a model's variable is unset: its local ComfyUI workflow when COMFYUI_URLS is set, else the
 * first supported route with credentials, else preview.
 */
export function defaultChain(model: ModelName, env: ProviderRouteEnv): Route[] {
  const local = LOCAL_DEFAULTS[model];
  for (const entry of local ? [local, ...MODELS[model].routes] : MODELS[model].routes) {
    const route = parseRoute(model, entry, env);
    if (typeof route !== "string") return [route];
  }
  return [PREVIEW];
}

export type RouteIssue = { variable: string; message: string };

/** Resolves every model's chain from MODEL_* values (undefined = unset). */
export function resolveChains(
  values: Partial<Record<ModelName, string>>,
  env: ProviderRouteEnv,
): { chains: Record<ModelName, Route[]>; issues: RouteIssue[] } {
  const issues: RouteIssue[] = [];
  const chains = {} as Record<ModelName, Route[]>;
  for (const model of MODEL_NAMES) {
    const value = values[model];
    if (value === undefined) {
      chains[model] = defaultChain(model, env);
      continue;
    }
    const { routes, errors } = parseChain(model, value, env);
    for (const message of errors) issues.push({ variable: MODELS[model].env, message });
    chains[model] = routes.length > 0 ? routes : [PREVIEW];
  }
  return { chains, issues };
}
