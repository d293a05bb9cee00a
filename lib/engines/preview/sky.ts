// Sky, light source, stars, clouds and weather: everything above or in front of the land that is not land.
import { lightenColor, mixColors, WHITE } from "./color";
import {
  buildCirclePath,
  buildCloudPath,
  buildPolylinePath,
  buildRectPath,
  buildSparklePath,
  formatNumber as f,
  type Point,
} from "./geometry";
import { type Light, type SceneContext, type Shape, type Stop, solid, vertical } from "./shapes";

export function buildSkyStops(ctx: SceneContext, horizonY: number): Stop[] {
  const { palette: p, height } = ctx;
  const h = horizonY / height;
  return [
    { at: 0, color: p.skyTop },
    { at: h * 0.55, color: p.skyMid },
    { at: h, color: p.skyHorizon },
    { at: 1, color: p.skyHorizon },
  ];
}

export function buildSky(ctx: SceneContext, stops: Stop[]): Shape {
  const { width, height } = ctx;
  return {
    layer: "sky",
    role: "sky",
    d: buildRectPath(0, 0, width, height),
    // Absolute coordinates let overlays (the neon sun's stripes) reuse the exact sky colour at any height.
    fill: { type: "linear", stops, user: { y1: 0, y2: height }, bands: 6 },
  };
}

/** `landTop` is how far the tallest land rises above the horizon, so the light is not hidden behind it. */
export function placeLight(ctx: SceneContext, horizonY: number, landTop = 0): Light {
  const { rng, width, height, unit, subjects, palette } = ctx;
  const x = width * rng.between(0.2, 0.8);
  if (palette.time === "night")
    return { kind: "moon", x, y: horizonY * rng.between(0.18, 0.42), r: unit * rng.between(0.045, 0.07) };
  const wantsSun = subjects.has("sun") || subjects.has("sunset") || subjects.has("desert");
  if (!wantsSun && (palette.overcast || rng.chance(0.35))) return { kind: "none", x, y: height * 0.2, r: 0 };
  if (palette.time === "sunset") {
    const r = unit * rng.between(0.08, 0.11);
    return {
      kind: "sun",
      x,
      y: horizonY - Math.max(unit * rng.between(0.02, 0.09), landTop * rng.between(0.75, 1.05) + r * 0.3),
      r,
    };
  }
  const r = unit * rng.between(0.05, 0.075);
  return {
    kind: "sun",
    x,
    y: Math.min(horizonY * rng.between(0.22, 0.45), Math.max(r * 1.5, horizonY - landTop - r * 1.5)),
    r,
  };
}

export function buildLight(ctx: SceneContext, light: Light): Shape[] {
  if (light.kind === "none") return [];
  const { rng, palette: p } = ctx;
  const { x, y, r } = light;
  const haloScale = light.kind === "moon" ? 4 : p.time === "sunset" ? 6 : 5;
  const halo: Shape = {
    layer: "sky",
    role: "glow",
    glow: true,
    d: buildCirclePath(x, y, r * haloScale),
    fill: {
      type: "radial",
      stops: [
        { at: 0, color: p.sunGlow, opacity: light.kind === "moon" ? 0.45 : 0.85 },
        { at: 0.3, color: p.sunGlow, opacity: light.kind === "moon" ? 0.18 : 0.35 },
        { at: 1, color: p.sunGlow, opacity: 0 },
      ],
      bands: 4,
    },
  };
  if (light.kind === "sun") {
    const disc: Shape = {
      layer: "sky",
      role: "sun",
      outline: true,
      d: buildCirclePath(x, y, r),
      fill: {
        type: "radial",
        stops: [
          { at: 0, color: lightenColor(p.sun, 0.6) },
          { at: 1, color: p.sun },
        ],
        bands: 2,
      },
    };
    return [halo, disc];
  }
  const shapes: Shape[] = [halo];
  if (rng.chance(0.5)) {
    // Crescent: the outer half circle, then back along a flatter arc.
    shapes.push({
      layer: "sky",
      role: "moon",
      outline: true,
      d: `M${f(x)} ${f(y - r)}A${f(r)} ${f(r)} 0 0 0 ${f(x)} ${f(y + r)}A${f(r * 1.25)} ${f(r * 1.25)} 0 0 1 ${f(x)} ${f(y - r)}Z`,
      fill: solid(p.sun),
    });
  } else {
    shapes.push({ layer: "sky", role: "moon", outline: true, d: buildCirclePath(x, y, r), fill: solid(p.sun) });
    let craters = "";
    for (let i = 0; i < 4; i++) {
      craters += buildCirclePath(
        x + r * rng.between(-0.5, 0.5),
        y + r * rng.between(-0.5, 0.5),
        r * rng.between(0.1, 0.22),
      );
    }
    shapes.push({
      layer: "sky",
      role: "moon",
      detail: true,
      d: craters,
      fill: solid(mixColors(p.sun, p.skyMid, 0.3)),
      opacity: 0.6,
    });
  }
  return shapes;
}

export function buildStars(ctx: SceneContext, horizonY: number): Shape[] {
  const { rng, width, unit } = ctx;
  const count = Math.round(((width * horizonY) / (unit * unit)) * 170);
  let dim = "";
  let bright = "";
  for (let i = 0; i < count; i++) {
    const x = rng.between(0, width);
    const y = horizonY * rng.next() ** 1.3 * 0.95;
    const big = rng.chance(0.2);
    const dot = buildCirclePath(x, y, unit * (big ? rng.between(0.0025, 0.004) : rng.between(0.001, 0.0022)));
    if (big) bright += dot;
    else dim += dot;
  }
  let sparkles = "";
  for (let i = 0, n = rng.int(4, 8); i < n; i++) {
    sparkles += buildSparklePath(
      rng.between(0, width),
      horizonY * rng.between(0.05, 0.6),
      unit * rng.between(0.008, 0.016),
    );
  }
  return [
    { layer: "sky", role: "star", d: dim, fill: solid(WHITE), opacity: 0.55 },
    { layer: "sky", role: "star", d: bright, fill: solid(WHITE), opacity: 0.95 },
    {
      layer: "sky",
      role: "star",
      glow: true,
      d: sparkles,
      fill: solid(lightenColor(ctx.palette.sunGlow, 0.5)),
      opacity: 0.9,
    },
  ];
}

export function buildClouds(ctx: SceneContext, horizonY: number): Shape[] {
  const { rng, width, height, unit, subjects, palette: p } = ctx;
  const stormy = p.overcast;
  const count = stormy ? rng.int(6, 9) : subjects.has("cloud") ? rng.int(3, 6) : rng.int(0, 3);
  const shapes: Shape[] = [];
  for (let i = 0; i < count; i++) {
    const w = unit * (stormy ? rng.between(0.35, 0.6) : rng.between(0.2, 0.42));
    const x = stormy
      ? (width * i) / count - w * 0.25 + rng.between(-0.05, 0.05) * width
      : rng.between(-0.1, 0.95) * width - w * 0.3;
    const baseY = stormy ? height * rng.between(0.08, 0.2) : rng.between(height * 0.1, horizonY * 0.72);
    shapes.push({
      layer: "sky",
      role: "cloud",
      outline: true,
      d: buildCloudPath(rng, x, baseY, w, w * rng.between(0.3, 0.42)),
      fill: vertical(p.cloud, p.cloudShade),
      opacity: stormy ? 1 : 0.96,
    });
  }
  return shapes;
}

/** A soft white band: mist lying on a layer of land. */
export function buildFogBand(ctx: SceneContext, centerY: number, thickness: number): Shape {
  const { width, palette: p } = ctx;
  const mist = lightenColor(p.skyHorizon, 0.4);
  return {
    layer: "ground",
    role: "fog",
    glow: true,
    d: buildRectPath(-2, centerY - thickness / 2, width + 4, thickness),
    fill: {
      type: "linear",
      stops: [
        { at: 0, color: mist, opacity: 0 },
        { at: 0.5, color: mist, opacity: 0.7 },
        { at: 1, color: mist, opacity: 0 },
      ],
      bands: 3,
    },
  };
}

/** Light pollution: a city at night glows into the sky above it. */
export function buildCityGlow(ctx: SceneContext, horizonY: number): Shape {
  const { width, unit, palette: p } = ctx;
  const thickness = unit * 0.3;
  return {
    layer: "sky",
    role: "glow",
    glow: true,
    d: buildRectPath(-2, horizonY - thickness / 2, width + 4, thickness),
    fill: {
      type: "linear",
      stops: [
        { at: 0, color: p.window, opacity: 0 },
        { at: 0.5, color: lightenColor(p.window, 0.2), opacity: 0.35 },
        { at: 1, color: p.window, opacity: 0 },
      ],
      bands: 3,
    },
  };
}

export function buildWeather(ctx: SceneContext, horizonY: number): Shape[] {
  const { rng, width, height, unit, subjects, palette: p } = ctx;
  const shapes: Shape[] = [];
  const area = (width * height) / (unit * unit);
  if (subjects.has("storm")) {
    const points: Point[] = [];
    let x = width * rng.between(0.25, 0.75);
    const top = height * 0.18;
    const steps = 9;
    for (let i = 0; i <= steps; i++) {
      points.push([x, top + ((horizonY * 0.95 - top) * i) / steps]);
      x += unit * rng.between(-0.045, 0.045);
    }
    const bolt = buildPolylinePath(points);
    shapes.push({
      layer: "weather",
      role: "lightning",
      glow: true,
      d: bolt,
      stroke: { color: lightenColor(p.sunGlow, 0.5), width: unit * 0.02, opacity: 0.25 },
    });
    shapes.push({ layer: "weather", role: "lightning", d: bolt, stroke: { color: WHITE, width: unit * 0.005 } });
  }
  if (subjects.has("rain") || subjects.has("storm")) {
    let d = "";
    const slant = rng.between(-0.35, 0.35);
    for (let i = 0, n = Math.round(area * 230); i < n; i++) {
      const x = rng.between(-0.05, 1.05) * width;
      const y = rng.between(0, height);
      const len = unit * rng.between(0.025, 0.06);
      d += buildPolylinePath([
        [x, y],
        [x + slant * len, y + len],
      ]);
    }
    shapes.push({
      layer: "weather",
      role: "rain",
      d,
      stroke: { color: p.weather, width: unit * 0.0018, opacity: 0.55 },
    });
  }
  if (subjects.has("snow")) {
    let small = "";
    let large = "";
    for (let i = 0, n = Math.round(area * 260); i < n; i++) {
      const big = rng.chance(0.25);
      const dot = buildCirclePath(
        rng.between(0, width),
        rng.between(0, height),
        unit * (big ? rng.between(0.004, 0.007) : rng.between(0.0015, 0.0035)),
      );
      if (big) large += dot;
      else small += dot;
    }
    shapes.push({ layer: "weather", role: "snowflake", d: small, fill: solid(WHITE), opacity: 0.7 });
    shapes.push({ layer: "weather", role: "snowflake", d: large, fill: solid(WHITE), opacity: 0.95 });
  }
  return shapes;
}
