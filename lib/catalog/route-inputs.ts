// What each route takes (text only, an image, an image and a mask), and the model id it switches to for them.
// One table: the chain, /api/status, the docs and the OpenAPI text all derive from it. Zod-free and SDK-free.
import type { ProviderRoute } from "./providers";

export const INPUT_KINDS = ["text", "image", "mask"] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

/**
 * A catalogue route's image and mask support: `true` when the route's own model takes it, a model id when the
 * provider serves edits with a sibling model (FLUX 1.1 [pro] edits go to Kontext, masks to Fill), absent when
 * the provider has no way to take it. Operators override the ids per model with MODEL_*_IMAGE / MODEL_*_MASK.
 */
export const ROUTE_EDITS: Record<string, { image?: true | string; mask?: true | string }> = {
  "bfl:flux-pro-1.1": { image: "flux-kontext-pro", mask: "flux-pro-1.0-fill" },
  "fal:fal-ai/flux-pro/v1.1": { image: "fal-ai/flux-pro/kontext", mask: "fal-ai/flux-pro/v1/fill" },
  "replicate:black-forest-labs/flux-1.1-pro": {
    image: "black-forest-labs/flux-kontext-pro",
    mask: "black-forest-labs/flux-fill-pro",
  },
  // Together takes an image (Kontext) but refuses masks.
  "together:black-forest-labs/FLUX.1.1-pro": { image: "black-forest-labs/FLUX.1-kontext-pro" },
  "openai:gpt-image-1": { image: true, mask: true },
  "stability:stable-diffusion-xl-1024-v1-0": { image: true, mask: true },
  "fal:fal-ai/fast-sdxl": { image: "fal-ai/fast-sdxl/image-to-image", mask: "fal-ai/fast-sdxl/inpainting" },
  "replicate:stability-ai/sdxl": { image: true, mask: true },
  // FLUX.1 [schnell] has no image input on the cloud routes; a local ComfyUI img2img workflow gives it one.
  "together:black-forest-labs/FLUX.1-schnell": {},
  "fal:fal-ai/flux/schnell": {},
  "replicate:black-forest-labs/flux-schnell": {},
} satisfies Record<string, { image?: true | string; mask?: true | string }> as Record<
  ProviderRoute,
  { image?: true | string; mask?: true | string }
>;

/** ComfyUI: a workflow `<name>` takes images when `<name>-img2img` exists, and masks when `<name>-inpaint` does. */
export const COMFYUI_EDIT_SUFFIX = { image: "-img2img", mask: "-inpaint" } as const;

/** The kind of input a request needs: a mask implies an image. */
export function inputNeeded(req: { image?: unknown; mask?: unknown }): InputKind {
  if (req.mask) return "mask";
  if (req.image) return "image";
  return "text";
}
