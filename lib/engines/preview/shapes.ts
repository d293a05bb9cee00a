// The scene vocabulary shared by the scene builders and the SVG writer: what to paint, not how a style paints it.
import type { Rgb } from "./color";
import type { Palette } from "./palette";
import type { Rng } from "./seed";
import type { Subject } from "./subjects";

export type Stop = { at: number; color: Rgb; opacity?: number };

export type Fill =
  | { type: "solid"; color: Rgb }
  /** Vertical by default, over the shape's bounding box; `user` spans absolute y coordinates instead. */
  | { type: "linear"; stops: Stop[]; diagonal?: boolean; user?: { y1: number; y2: number }; bands?: number }
  | { type: "radial"; stops: Stop[]; cx?: number; cy?: number; r?: number; bands?: number };

/** Paint order bucket; styles slot their own layers (haze, grids) between buckets. */
export type Layer = "sky" | "far" | "ground" | "fore" | "weather";

export type Role =
  | "sky"
  | "glow"
  | "sun"
  | "moon"
  | "star"
  | "cloud"
  | "mountain"
  | "snowcap"
  | "shade"
  | "hill"
  | "water"
  | "wave"
  | "reflection"
  | "building"
  | "window"
  | "tree"
  | "trunk"
  | "flower"
  | "stem"
  | "grass"
  | "cactus"
  | "rain"
  | "snowflake"
  | "lightning"
  | "fog"
  | "block";

export type Shape = {
  layer: Layer;
  role: Role;
  /** SVG path data in canvas pixels. */
  d: string;
  fill?: Fill;
  stroke?: { color: Rgb; width: number; opacity?: number };
  opacity?: number;
  /** A solid object: ink styles trace its contour. */
  outline?: boolean;
  /** Light or halo: styles without light (line art) drop it. */
  glow?: boolean;
  /** Secondary shading or texture that sparse styles may skip. */
  detail?: boolean;
};

export type Light = { kind: "sun" | "moon" | "none"; x: number; y: number; r: number };

export type Scene = { shapes: Shape[]; horizonY: number; light: Light; skyStops: Stop[] };

export function solid(color: Rgb): Fill {
  return { type: "solid", color };
}

export function vertical(top: Rgb, bottom: Rgb, bands = 2): Fill {
  return {
    type: "linear",
    stops: [
      { at: 0, color: top },
      { at: 1, color: bottom },
    ],
    bands,
  };
}

/** Everything a scene builder needs to know about the picture it is laying out. */
export type SceneContext = {
  rng: Rng;
  width: number;
  height: number;
  /** The shorter side: sizes scale with it so objects look alike in every ratio. */
  unit: number;
  subjects: ReadonlySet<Subject>;
  palette: Palette;
};
