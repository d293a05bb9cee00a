// Sampling settings for local GPU servers: per shipped workflow, and per model for A1111 and operator workflows.
import { MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";

export type SamplingPreset = {
  steps: number;
  cfg: number;
  /** AUTOMATIC1111 names (1.9+ splits the scheduler out of the sampler name). */
  sampler: string;
  scheduler: string;
};

const SDXL: SamplingPreset = { steps: 30, cfg: 7, sampler: "DPM++ 2M", scheduler: "Karras" };
// FLUX is guidance-distilled: CFG 1, and negative prompts have no effect.
const FLUX_SCHNELL: SamplingPreset = { steps: 4, cfg: 1, sampler: "Euler", scheduler: "Simple" };
const FLUX_DEV: SamplingPreset = { steps: 20, cfg: 1, sampler: "Euler", scheduler: "Simple" };

/** What an operator's checkpoint most likely is for each public model name; any mapping works, these are defaults. */
export const MODEL_PRESETS: Record<ModelName, SamplingPreset> = {
  "alpha-pro": FLUX_DEV,
  "beta-3": SDXL,
  "gamma-xl-1024-v1-0": SDXL,
  "alpha-schnell": FLUX_SCHNELL,
};

/** Text to image, and for each its image-to-image (`-img2img`) and inpainting (`-inpaint`) siblings. */
export const SHIPPED_WORKFLOWS = [
  "sdxl",
  "flux-schnell",
  "sdxl-img2img",
  "sdxl-inpaint",
  "flux-schnell-img2img",
  "flux-schnell-inpaint",
] as const;
export type ShippedWorkflow = (typeof SHIPPED_WORKFLOWS)[number];

const SDXL_CHECKPOINT = { variable: "COMFYUI_SDXL_CHECKPOINT", fallback: "sd_xl_base_1.0.safetensors" };
const FLUX_CHECKPOINT = { variable: "COMFYUI_FLUX_CHECKPOINT", fallback: "flux1-schnell-fp8.safetensors" };
export const SHIPPED_CHECKPOINTS: Record<ShippedWorkflow, { variable: string; fallback: string }> = {
  sdxl: SDXL_CHECKPOINT,
  "sdxl-img2img": SDXL_CHECKPOINT,
  "sdxl-inpaint": SDXL_CHECKPOINT,
  "flux-schnell": FLUX_CHECKPOINT,
  "flux-schnell-img2img": FLUX_CHECKPOINT,
  "flux-schnell-inpaint": FLUX_CHECKPOINT,
};

/** A shipped workflow's steps follow its model class, whichever public model it serves. */
const WORKFLOW_STEPS: Record<ShippedWorkflow, number> = {
  sdxl: SDXL.steps,
  "sdxl-img2img": SDXL.steps,
  "sdxl-inpaint": SDXL.steps,
  "flux-schnell": FLUX_SCHNELL.steps,
  "flux-schnell-img2img": FLUX_SCHNELL.steps,
  "flux-schnell-inpaint": FLUX_SCHNELL.steps,
};

export function stepsFor(workflow: string, model: ModelName): number {
  return WORKFLOW_STEPS[workflow as ShippedWorkflow] ?? MODEL_PRESETS[model].steps;
}

/**
 * The size the server renders: SDXL's own sizes for the sdxl workflow (whatever model it serves; the chain then
 * crops to the model's size), the model's size otherwise.
 */
export function renderSizeFor(workflow: string, ratio: Ratio, size: { width: number; height: number }) {
  return workflow === "sdxl" ? MODELS["gamma-xl-1024-v1-0"].sizes[ratio] : size;
}
