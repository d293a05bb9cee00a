// How each of the 14 style presets treats the same scene: fills, ink, colour grade and finishing layers.
import type { StyleName } from "@/lib/catalog/styles";
import {
  clamp01,
  convertHsl,
  convertToHsl,
  measureLuma,
  mixColors,
  posterizeColor,
  type Rgb,
  saturateColor,
} from "./color";

export type OverlayName =
  | "letterbox"
  | "vignette"
  | "softVignette"
  | "grain"
  | "halftone"
  | "lightLeak"
  | "rays"
  | "sparkles"
  | "haze"
  | "sunlight"
  | "flare"
  | "bloom"
  | "neonGrid"
  | "neonSun"
  | "paperEdge"
  | "washBlooms";

export type Treatment = {
  /** smooth: gradients as given; banded: gradients cut into flat cel bands; line: white paper, black ink; wash: translucent layered paint. */
  fill: "smooth" | "banded" | "line" | "wash";
  /** Band limits in banded mode: objects get few (cel shading), sky and glows a few more (a stepped gradient). */
  maxBands: number;
  skyBands: number;
  grade(color: Rgb): Rgb;
  /** Contour ink on solid objects; width is a fraction of the short side. */
  ink?: { color: Rgb; width: number };
  /** Contours become magenta/cyan tubes with a halo. */
  neon?: boolean;
  /** Fills slip off the ink lines like a hand-coloured print; fraction of the short side. */
  misregister?: number;
  /** Soft drop shadows and a diagonal key light on solid objects. */
  clay?: boolean;
  /** Render on a coarse grid of this fraction of the short side, then upscale with nearest neighbour. */
  pixel?: number;
  isometric?: boolean;
  /** Shows through translucent washes. */
  paper?: Rgb;
  overlays: { afterFar?: OverlayName[]; afterGround?: OverlayName[]; top?: OverlayName[] };
  caption: "dark" | "light";
};

const PAPER: Rgb = [246, 240, 226];
const INK: Rgb = [22, 20, 28];

const TREATMENTS: Record<StyleName, Treatment> = {
  Photorealistic: {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => adjustContrast(saturateColor(c, 0.05), 1.06),
    overlays: { afterFar: ["haze"], top: ["sunlight", "vignette"] },
    caption: "dark",
  },
  Cinematic: {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => adjustContrast(gradeTealOrange(c), 1.12),
    overlays: { afterFar: ["haze"], top: ["flare", "vignette", "letterbox"] },
    caption: "dark",
  },
  Illustration: {
    fill: "banded",
    maxBands: 1,
    skyBands: 3,
    grade: (c) => mixColors(saturateColor(c, -0.12), PAPER, 0.1),
    ink: { color: INK, width: 0.0028 },
    misregister: 0.005,
    paper: PAPER,
    overlays: {},
    caption: "dark",
  },
  Anime: {
    fill: "banded",
    maxBands: 2,
    skyBands: 5,
    grade: (c) => saturateColor(c, 0.35),
    ink: { color: [26, 24, 48], width: 0.0048 },
    overlays: { top: ["sparkles"] },
    caption: "dark",
  },
  "Digital Art": {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => adjustContrast(saturateColor(c, 0.3), 1.08),
    overlays: { afterFar: ["haze"], top: ["bloom", "rays", "softVignette"] },
    caption: "dark",
  },
  Fantasy: {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => saturateColor(gradeFantasy(c), 0.12),
    overlays: { afterFar: ["haze"], top: ["rays", "bloom", "sparkles", "vignette"] },
    caption: "dark",
  },
  "Comic Book": {
    fill: "banded",
    maxBands: 2,
    skyBands: 4,
    grade: (c) => adjustContrast(saturateColor(c, 0.5), 1.12),
    ink: { color: [8, 8, 12], width: 0.0065 },
    overlays: { top: ["halftone"] },
    caption: "dark",
  },
  "Line Art": {
    fill: "line",
    maxBands: 1,
    skyBands: 1,
    grade: (c) => c,
    ink: { color: INK, width: 0.0026 },
    overlays: {},
    caption: "light",
  },
  "Pixel Art": {
    fill: "banded",
    maxBands: 2,
    skyBands: 6,
    grade: (c) => posterizeColor(saturateColor(c, 0.2), 6),
    // 1.5 grid cells: a single cell drops out where crisp-edged strokes fall between pixel centres.
    ink: { color: [20, 16, 36], width: 1.5 / 128 },
    pixel: 1 / 128,
    overlays: {},
    caption: "dark",
  },
  "3D Render": {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => mixColors(saturateColor(c, -0.05), [255, 255, 255], 0.04),
    clay: true,
    overlays: { afterFar: ["haze"], top: ["softVignette"] },
    caption: "dark",
  },
  "Analog Film": {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: gradeFaded,
    overlays: { afterFar: ["haze"], top: ["lightLeak", "grain", "vignette"] },
    caption: "dark",
  },
  "Neon Punk": {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: gradeNeon,
    neon: true,
    overlays: { afterGround: ["neonGrid"], top: ["neonSun", "vignette"] },
    caption: "dark",
  },
  Isometric: {
    fill: "smooth",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => mixColors(saturateColor(c, 0.12), [255, 255, 255], 0.04),
    isometric: true,
    overlays: { top: ["softVignette"] },
    caption: "dark",
  },
  Watercolor: {
    fill: "wash",
    maxBands: 0,
    skyBands: 0,
    grade: (c) => mixColors(saturateColor(c, 0.1), PAPER, 0.12),
    paper: PAPER,
    // No paper grain: speckle costs ~40% more PNG bytes and encode time for texture barely visible at this size.
    overlays: { afterGround: ["washBlooms"], top: ["paperEdge"] },
    caption: "dark",
  },
};

export function getTreatment(style: StyleName): Treatment {
  return TREATMENTS[style];
}

export function adjustContrast(color: Rgb, amount: number): Rgb {
  return [128 + (color[0] - 128) * amount, 128 + (color[1] - 128) * amount, 128 + (color[2] - 128) * amount];
}

// Shadows toward teal, highlights toward orange, at the colour's own brightness: the blockbuster grade.
function gradeTealOrange(color: Rgb): Rgb {
  const l = measureLuma(color);
  const target = mixColors(convertHsl(186, 0.7, l * 0.9), convertHsl(30, 0.9, l), interpolateSmoothly(0.25, 0.7, l));
  return mixColors(color, target, 0.5);
}

// Purple shadows and golden lights read as "magical" at a glance.
function gradeFantasy(color: Rgb): Rgb {
  const l = measureLuma(color);
  const target = mixColors(convertHsl(272, 0.55, l), convertHsl(44, 0.85, l), interpolateSmoothly(0.3, 0.8, l));
  return mixColors(color, target, 0.3);
}

// Lifted blacks, softened colour and a warm cast: an old print.
function gradeFaded(color: Rgb): Rgb {
  const c = saturateColor(color, -0.15);
  return [c[0] * 0.88 + 26, c[1] * 0.86 + 20, c[2] * 0.8 + 14];
}

// Everything sinks into the dark; what was bright comes back as magenta (warm) or cyan (cool) light.
function gradeNeon(color: Rgb): Rgb {
  const l = measureLuma(color);
  const [h, s] = convertToHsl(color);
  // The brightest tones (sky glow, sun, clouds) always go magenta so every frame carries both neons.
  const warm = l > 0.62 || (s > 0.08 && (h < 75 || h > 285));
  return convertHsl(warm ? 318 : 188, 0.9, clamp01(0.035 + l * l * 0.5));
}

function interpolateSmoothly(edge0: number, edge1: number, x: number): number {
  const t = clamp01((x - edge0) / (edge1 - edge0));
  return t * t * (3 - 2 * t);
}
