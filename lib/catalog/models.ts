// The model catalogue: each published model, what it stands for, its output sizes and how it is routed.
// Validation, the status record, OpenAPI, the pickers, the docs page and config all derive from MODEL_CATALOG,
// so adding a model is one entry here. Zod-free and SDK-free, so pages import it without shipping either.
import type { ProviderName, ProviderRoute } from "./providers";

export const RATIOS = ["1:1", "16:9", "9:16"] as const;
export type Ratio = (typeof RATIOS)[number];
export const DEFAULT_RATIO: Ratio = "1:1";

export type ImageSize = { width: number; height: number };

export type CatalogModel = {
  /** The public name callers send as `model`. */
  name: string;
  /** What class of real model the name stands for. */
  family: string;
  /** One honest line for pickers and docs. */
  description: string;
  /** Output size per ratio: what the real provider returns for this class of model. */
  sizes: Record<Ratio, ImageSize>;
  /** The environment variable that sets the model's route or fallback chain. */
  env: `MODEL_${string}`;
  /** Routes the model may take, in default order: with `env` unset, the first whose credential is set, else preview. */
  routes: readonly ProviderRoute[];
  /** Providers that accept any model id behind a base-URL override: compatible servers name their own models. */
  anyIdBehindBaseUrl?: readonly ProviderName[];
};

// FLUX accepts multiples of 32 between 256 and 1440; these are the nearest 1 MP shapes.
const FLUX_SIZES = {
  "1:1": { width: 1024, height: 1024 },
  "16:9": { width: 1376, height: 768 },
  "9:16": { width: 768, height: 1376 },
};

export const MODEL_CATALOG = [
  {
    name: "alpha-pro",
    family: "FLUX 1.1 [pro]",
    description: "Best overall quality and prompt adherence; slower and pricier.",
    sizes: FLUX_SIZES,
    env: "MODEL_ALPHA_PRO",
    routes: [
      "bfl:flux-pro-1.1",
      "fal:fal-ai/flux-pro/v1.1",
      "replicate:black-forest-labs/flux-1.1-pro",
      "together:black-forest-labs/FLUX.1.1-pro",
    ],
  },
  {
    name: "beta-3",
    family: "GPT Image (successor of DALL·E 3)",
    description: "Strong at text in images and following long instructions.",
    // gpt-image-1 has no 16:9 size: 1536×1024 is generated and centre-cropped to 16:9.
    sizes: {
      "1:1": { width: 1024, height: 1024 },
      "16:9": { width: 1536, height: 864 },
      "9:16": { width: 864, height: 1536 },
    },
    env: "MODEL_BETA_3",
    routes: ["openai:gpt-image-1"],
    anyIdBehindBaseUrl: ["openai"],
  },
  {
    name: "gamma-xl-1024-v1-0",
    family: "Stable Diffusion XL 1.0",
    description: "Open-weights SDXL; good with artistic styles and native style presets.",
    // SDXL v1 accepts only nine sizes; these are its 1:1, 16:9-ish and 9:16-ish ones.
    sizes: {
      "1:1": { width: 1024, height: 1024 },
      "16:9": { width: 1344, height: 768 },
      "9:16": { width: 768, height: 1344 },
    },
    env: "MODEL_GAMMA_XL_1024_V1_0",
    routes: ["stability:stable-diffusion-xl-1024-v1-0", "fal:fal-ai/fast-sdxl", "replicate:stability-ai/sdxl"],
  },
  {
    name: "alpha-schnell",
    family: "FLUX.1 [schnell]",
    description: "Fast 4-step FLUX; quick drafts at low cost.",
    sizes: FLUX_SIZES,
    env: "MODEL_ALPHA_SCHNELL",
    routes: [
      "together:black-forest-labs/FLUX.1-schnell",
      "fal:fal-ai/flux/schnell",
      "replicate:black-forest-labs/flux-schnell",
    ],
  },
] as const satisfies readonly CatalogModel[];

export type ModelName = (typeof MODEL_CATALOG)[number]["name"];
export const MODEL_NAMES = MODEL_CATALOG.map((m) => m.name) as [ModelName, ...ModelName[]];
export const DEFAULT_MODEL: ModelName = "alpha-pro";

export type ModelEntry = CatalogModel & { name: ModelName };
const ENTRIES: readonly ModelEntry[] = MODEL_CATALOG;
export const MODELS = Object.fromEntries(ENTRIES.map((m) => [m.name, m])) as Record<ModelName, ModelEntry>;
