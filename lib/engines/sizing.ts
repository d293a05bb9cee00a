// The output size of an image-to-image request: the image's aspect within 3 % where the route allows any size
// (at about the model's usual pixel count), the nearest of its sizes where it has fixed ones.
import type { ImageSize } from "@/lib/catalog/models";
import { RATIOS, type Ratio } from "@/lib/catalog/models";
import { PREVIEW_ROUTE, type Route } from "./routes";

export type Sizing =
  | { kind: "any"; multiple: number; minSide: number; maxSide: number }
  | { kind: "fixed"; sizes: readonly ImageSize[] };

const size = (width: number, height: number): ImageSize => ({ width, height });
/** SDXL v1 on Stability accepts only these nine. */
const SDXL_SIZES = [
  size(1024, 1024),
  size(1152, 896),
  size(896, 1152),
  size(1216, 832),
  size(832, 1216),
  size(1344, 768),
  size(768, 1344),
  size(1536, 640),
  size(640, 1536),
];
const GPT_IMAGE_SIZES = [size(1024, 1024), size(1536, 1024), size(1024, 1536)];
/** FLUX takes multiples of 32 between 256 and 1440. */
const FLUX: Sizing = { kind: "any", multiple: 32, minSide: 256, maxSide: 1440 };
/** Latent diffusion servers and the preview renderer take multiples of 8. */
const FREE: Sizing = { kind: "any", multiple: 8, minSide: 256, maxSide: 2048 };

/** One row per route kind: what sizes it may be asked for. */
export function sizingOf(route: Route): Sizing {
  switch (route.provider) {
    case "openai":
      return { kind: "fixed", sizes: GPT_IMAGE_SIZES };
    case "stability":
      return { kind: "fixed", sizes: SDXL_SIZES };
    case "bfl":
    case "together":
      return FLUX;
    case "fal":
    case "replicate":
      return route.modelId.includes("sdxl") ? FREE : FLUX;
    case PREVIEW_ROUTE:
    case "comfyui":
    case "a1111":
      return FREE;
  }
}

/** The size closest to the image's aspect at about `area` pixels that the sizing allows. */
export function sizeForImage(sizing: Sizing, image: ImageSize, area: number): ImageSize {
  const aspect = image.width / image.height;
  const error = (s: ImageSize) => Math.abs(Math.log(s.width / s.height / aspect));
  if (sizing.kind === "fixed") return [...sizing.sizes].sort((a, b) => error(a) - error(b))[0];
  const { multiple, minSide, maxSide } = sizing;
  const clamp = (v: number) => Math.min(maxSide, Math.max(minSide, Math.round(v / multiple) * multiple));
  const idealWidth = Math.sqrt(area * aspect);
  let best = size(clamp(idealWidth), clamp(idealWidth / aspect));
  // A few widths around the ideal, each with its best height: rounding both sides can add up past 3 %.
  for (let step = -4; step <= 4; step++) {
    const width = clamp(idealWidth + step * multiple);
    const candidate = size(width, clamp(width / aspect));
    const areaDrift = (s: ImageSize) => Math.abs(Math.log((s.width * s.height) / area));
    if (error(candidate) + areaDrift(candidate) * 0.01 < error(best) + areaDrift(best) * 0.01) best = candidate;
  }
  return best;
}

/** The published ratio nearest a size, for the `ratio` field of the answer. */
export function nearestRatio(s: ImageSize): Ratio {
  const value = (r: Ratio) => {
    const [w, h] = r.split(":").map(Number);
    return Math.abs(Math.log(s.width / s.height / (w / h)));
  };
  return [...RATIOS].sort((a, b) => value(a) - value(b))[0];
}
