// The four public model names and what each stands for. The service's engines map onto these.
export const MODEL_NAMES = ["alpha-pro", "beta-3", "gamma-xl-1024-v1-0", "alpha-schnell"] as const;
export type ModelName = (typeof MODEL_NAMES)[number];
export const DEFAULT_MODEL: ModelName = "alpha-pro";

export const RATIOS = ["1:1", "16:9", "9:16"] as const;
export type Ratio = (typeof RATIOS)[number];
export const DEFAULT_RATIO: Ratio = "1:1";

export type ModelInfo = {
  name: ModelName;
  /** What class of real model the name stands for. */
  family: string;
  /** One honest line for pickers and docs. */
  description: string;
  /** Output size per ratio: what the real provider returns for this class of model. */
  sizes: Record<Ratio, { width: number; height: number }>;
};

// FLUX accepts multiples of 32 between 256 and 1440; these are the nearest 1 MP shapes.
const FLUX_SIZES = {
  "1:1": { width: 1024, height: 1024 },
  "16:9": { width: 1376, height: 768 },
  "9:16": { width: 768, height: 1376 },
};

export const MODELS: Record<ModelName, ModelInfo> = {
  "alpha-pro": {
    name: "alpha-pro",
    family: "FLUX 1.1 [pro]",
    description: "Best overall quality and prompt adherence; slower and pricier.",
    sizes: FLUX_SIZES,
  },
  "beta-3": {
    name: "beta-3",
    family: "GPT Image (successor of DALL·E 3)",
    description: "Strong at text in images and following long instructions.",
    // gpt-image-1 has no 16:9 size: 1536×1024 is generated and centre-cropped to 16:9.
    sizes: {
      "1:1": { width: 1024, height: 1024 },
      "16:9": { width: 1536, height: 864 },
      "9:16": { width: 864, height: 1536 },
    },
  },
  "gamma-xl-1024-v1-0": {
    name: "gamma-xl-1024-v1-0",
    family: "Stable Diffusion XL 1.0",
    description: "Open-weights SDXL; good with artistic styles and native style presets.",
    // SDXL v1 accepts only nine sizes; these are its 1:1, 16:9-ish and 9:16-ish ones.
    sizes: {
      "1:1": { width: 1024, height: 1024 },
      "16:9": { width: 1344, height: 768 },
      "9:16": { width: 768, height: 1344 },
    },
  },
  "alpha-schnell": {
    name: "alpha-schnell",
    family: "FLUX.1 [schnell]",
    description: "Fast 4-step FLUX; quick drafts at low cost.",
    sizes: FLUX_SIZES,
  },
};
