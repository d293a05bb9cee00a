// Which configured routes can take a request (text, an image, an image and a mask), and the route each one
// switches to for it, from the catalogue's ROUTE_EDITS and the ComfyUI workflows that are loaded.
import { MODEL_NAMES, MODELS, type ModelName } from "@/lib/catalog/models";
import { COMFYUI_EDIT_SUFFIX, INPUT_KINDS, type InputKind, ROUTE_EDITS } from "@/lib/catalog/route-inputs";
import { UnsupportedInput } from "@/lib/errors";
import { PREVIEW_ROUTE, type ProviderRouteEnv, type Route } from "./routes";

/** What decides a route's variants: the loaded ComfyUI workflows, base URLs, and the operator's overrides. */
export type CapabilityEnv = Pick<ProviderRouteEnv, "baseUrls" | "local"> & {
  /** MODEL_*_IMAGE / MODEL_*_MASK: the model id a provider uses for that model's image or mask requests. */
  overrides?: Partial<Record<ModelName, Partial<Record<"image" | "mask", Record<string, string>>>>>;
};

/** The route that serves `need` in place of `route` (itself, or its edit sibling), or null when it cannot. */
export function variantFor(model: ModelName, route: Route, need: InputKind, env: CapabilityEnv): Route | null {
  if (need === "text" || route.provider === PREVIEW_ROUTE || route.provider === "a1111") return route;
  if (route.provider === "comfyui") {
    const workflow = `${route.modelId}${COMFYUI_EDIT_SUFFIX[need]}`;
    if (!env.local?.comfyuiWorkflows?.includes(workflow)) return null;
    return { ...route, id: `comfyui:${workflow}`, modelId: workflow };
  }
  const override = env.overrides?.[model]?.[need]?.[route.provider];
  if (override) return { ...route, id: `${route.provider}:${override}`, modelId: override };
  const base = route.modelId.split(":")[0];
  const entry = ROUTE_EDITS[`${route.provider}:${base}`];
  // A compatible server behind a base URL (LocalAI, a gateway) names its own models; OpenAI's edits API serves both.
  if (!entry && route.provider === "openai" && env.baseUrls.openai) return route;
  const edit = entry?.[need];
  if (edit === undefined) return null;
  if (edit === true) return route;
  return { ...route, id: `${route.provider}:${edit}`, modelId: edit };
}

/** The inputs some route of the chain takes, in INPUT_KINDS order. */
export function inputsOf(model: ModelName, chain: readonly Route[], env: CapabilityEnv): InputKind[] {
  return INPUT_KINDS.filter((need) => chain.some((route) => variantFor(model, route, need, env)));
}

/** Throws UnsupportedInput, naming the models that take `need`, when no route of the model's chain does. */
export function assertModelTakes(
  model: ModelName,
  need: InputKind,
  chains: Record<ModelName, readonly Route[]>,
  env: CapabilityEnv,
): void {
  if (inputsOf(model, chains[model], env).includes(need)) return;
  const able = MODEL_NAMES.filter((m) => inputsOf(m, chains[m], env).includes(need));
  const what = need === "mask" ? "an image with a mask" : "an image";
  const others =
    able.length > 0 ? `Models that take ${what} here: ${able.join(", ")}.` : `No model takes ${what} here.`;
  throw new UnsupportedInput(
    `${model} (${MODELS[model].family}) has no configured route that takes ${what}. ${others}`,
  );
}
