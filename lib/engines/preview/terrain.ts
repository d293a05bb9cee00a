// Land and water: hill and mountain ridges, the sea, lakes and rivers, each sized from the canvas so any ratio composes.
import { BLACK, mixColors, type Rgb } from "./color";
import {
  buildBlobPath,
  buildPolylinePath,
  buildRectPath,
  buildSmoothPath,
  formatNumber as f,
  interpolateY,
  type Point,
} from "./geometry";
import { type Light, type SceneContext, type Shape, solid, vertical } from "./shapes";

export type Ridge = { points: Point[]; d: string; findY(x: number): number };

export type RiverShape = { shapes: Shape[]; covers(x: number, y: number): boolean };

/** Rolling land: a few sine waves with seeded phases, smoothed. Sizes follow `unit` so hills keep their shape across ratios. */
export function buildHillRidge(ctx: SceneContext, baseY: number, amplitude: number, bottom: number): Ridge {
  const { rng, width, unit } = ctx;
  const pad = unit * 0.06;
  const waves = [1, 2, 3.3].map((k) => ({
    freq: k * rng.between(0.35, 0.8),
    phase: rng.between(0, Math.PI * 2),
    amp: 1 / k,
  }));
  const total = waves.reduce((sum, w) => sum + w.amp, 0);
  const n = Math.ceil((width / unit) * 18);
  const points: Point[] = [];
  for (let i = 0; i <= n; i++) {
    const x = -pad + ((width + 2 * pad) * i) / n;
    let v = 0;
    for (const w of waves) v += w.amp * Math.sin((x / unit) * w.freq * Math.PI * 2 + w.phase);
    points.push([x, baseY - amplitude * (0.5 + (0.5 * v) / total)]);
  }
  const d = `${buildSmoothPath(points, false)}L${f(width + pad)} ${f(bottom)}L${f(-pad)} ${f(bottom)}Z`;
  return { points, d, findY: (x) => interpolateY(points, x) };
}

export function buildHill(layer: Shape["layer"], ridge: Ridge, top: Rgb, bottom: Rgb): Shape {
  return { layer, role: "hill", outline: true, d: ridge.d, fill: vertical(top, bottom) };
}

type Peak = { x: number; h: number; halfWidth: number };

/** A jagged range with snow caps and a shaded flank opposite the light. */
export function buildMountains(
  ctx: SceneContext,
  baseY: number,
  height: number,
  color: Rgb,
  snowy: boolean,
  lightFromLeft: boolean,
): { shapes: Shape[]; ridge: Ridge } {
  const { rng, width, unit, palette: p } = ctx;
  const pad = unit * 0.06;
  const k = Math.max(2, Math.round((width / unit) * rng.between(1.4, 2.4)));
  const peaks: Peak[] = [];
  for (let i = 0; i < k; i++) {
    peaks.push({
      x: (width * (i + rng.between(0.15, 0.85))) / k,
      h: height * rng.between(0.45, 0.95),
      halfWidth: (width / k) * rng.between(0.8, 1.5),
    });
  }
  peaks[rng.int(0, k - 1)].h = height;

  const xs: number[] = peaks.map((peak) => peak.x);
  const step = unit * 0.012;
  for (let x = -pad; x <= width + pad; x += step) xs.push(x);
  xs.push(width + pad);
  xs.sort((a, b) => a - b);
  const profile = (x: number): number => {
    let lift = 0;
    for (const peak of peaks) {
      const u = 1 - Math.abs(x - peak.x) / peak.halfWidth;
      if (u > 0) lift = Math.max(lift, peak.h * u ** 1.35);
    }
    return baseY - lift - height * 0.05 * (1 + Math.sin((x / unit) * 5));
  };
  const clean: number[] = xs.map(profile);
  const peakXs = new Set(xs.filter((x) => peaks.some((peak) => peak.x === x)));
  const points: Point[] = xs.map((x, i) => [x, clean[i] + (peakXs.has(x) ? 0 : rng.between(-1, 1) * height * 0.016)]);
  const d = `${buildPolylinePath(points)}L${f(width + pad)} ${f(ctx.height + pad)}L${f(-pad)} ${f(ctx.height + pad)}Z`;
  const ridge: Ridge = { points, d, findY: (x) => interpolateY(points, x) };

  const haze = mixColors(color, p.skyHorizon, 0.55);
  const shapes: Shape[] = [{ layer: "far", role: "mountain", outline: true, d, fill: vertical(color, haze) }];

  let caps = "";
  const used = new Set<number>();
  for (const peak of [...peaks].sort((a, b) => b.h - a.h)) {
    const top = xs.indexOf(peak.x);
    if (used.has(top) || (!snowy && peak.h < height * 0.7)) continue;
    const peakY = points[top][1];
    const snowline = peakY + (baseY - peakY) * (snowy ? 0.42 : 0.2);
    let left = top;
    let right = top;
    while (left > 0 && points[left - 1][1] < snowline) left--;
    while (right < points.length - 1 && points[right + 1][1] < snowline) right++;
    if (right - left < 2) continue;
    for (let i = left; i <= right; i++) used.add(i);
    const outline: Point[] = points.slice(left, right + 1);
    const depth = (snowline - peakY) * 0.28;
    const x0 = points[left][0];
    const x1 = points[right][0];
    for (let j = 1; j <= 5; j++) outline.push([x1 + ((x0 - x1) * j) / 6, snowline + rng.between(0.1, 1) * depth]);
    caps += `${buildPolylinePath(outline)}Z`;
  }
  if (caps)
    shapes.push({
      layer: "far",
      role: "snowcap",
      outline: true,
      d: caps,
      fill: vertical(p.snow, mixColors(p.snow, color, 0.25)),
    });

  // The shaded flank is a translucent overlay so it darkens rock and snow alike.
  let flanks = "";
  for (const peak of peaks) {
    const top = xs.indexOf(peak.x);
    const dir = lightFromLeft ? 1 : -1;
    let j = top;
    while (j + dir >= 0 && j + dir < xs.length && clean[j + dir] >= clean[j] - 0.01) j += dir;
    if (Math.abs(j - top) < 2) continue;
    const face: Point[] = [];
    for (let i = top; i !== j + dir; i += dir) face.push(points[i]);
    face.push([points[j][0], baseY + height * 0.1]);
    face.push([peak.x + (points[j][0] - peak.x) * 0.12, baseY + height * 0.1]);
    flanks += `${buildPolylinePath(face)}Z`;
  }
  if (flanks)
    shapes.push({
      layer: "far",
      role: "shade",
      detail: true,
      d: flanks,
      fill: solid(mixColors(color, BLACK, 0.55)),
      opacity: 0.28,
    });
  return { shapes, ridge };
}

export function buildSea(ctx: SceneContext, horizonY: number, light: Light): Shape[] {
  const { rng, width, height, unit, palette: p } = ctx;
  const pad = unit * 0.06;
  const shapes: Shape[] = [
    {
      layer: "ground",
      role: "water",
      outline: true,
      d: buildRectPath(-pad, horizonY, width + 2 * pad, height - horizonY + pad),
      fill: {
        type: "linear",
        stops: [
          { at: 0, color: mixColors(p.water, p.skyHorizon, 0.5) },
          { at: 0.3, color: p.water },
          { at: 1, color: p.waterDeep },
        ],
        bands: 3,
      },
    },
  ];
  let waves = "";
  const depth = height - horizonY;
  for (let i = 0, n = Math.round((width / unit) * 110); i < n; i++) {
    const t = rng.next() ** 1.7;
    const y = horizonY + depth * (0.02 + t * 0.98);
    const len = unit * (0.015 + 0.09 * t) * rng.between(0.6, 1.4);
    const x = rng.between(-0.05, 1.05) * width;
    waves += buildPolylinePath([
      [x, y],
      [x + len, y],
    ]);
  }
  shapes.push({
    layer: "ground",
    role: "wave",
    detail: true,
    d: waves,
    stroke: { color: mixColors(p.water, p.skyHorizon, 0.7), width: unit * 0.0035, opacity: 0.55 },
  });
  if (light.kind !== "none") shapes.push(buildReflection(ctx, light, horizonY, height, 22, unit * 0.006));
  return shapes;
}

/** A low island sitting on the horizon line of the sea. */
export function buildIsland(
  ctx: SceneContext,
  horizonY: number,
): { shape: Shape; x: number; top: number; halfWidth: number } {
  const { rng, width, unit, palette: p } = ctx;
  const halfWidth = unit * rng.between(0.12, 0.26);
  const x = width * rng.pick([rng.between(0.15, 0.35), rng.between(0.65, 0.85)]);
  const rise = unit * rng.between(0.03, 0.065);
  const points: Point[] = [];
  for (let i = 0; i <= 10; i++) {
    const t = i / 10;
    points.push([
      x - halfWidth + 2 * halfWidth * t,
      horizonY - rise * Math.sin(Math.PI * t) ** 0.7 * (i % 10 ? rng.between(0.85, 1.05) : 1),
    ]);
  }
  const d = `${buildSmoothPath(points, false)}Z`;
  return {
    shape: { layer: "ground", role: "hill", outline: true, d, fill: vertical(p.mid, mixColors(p.mid, p.far, 0.4)) },
    x,
    top: horizonY - rise,
    halfWidth,
  };
}

/** The broken column of light a sun or moon throws across water. */
export function buildReflection(
  ctx: SceneContext,
  light: Light,
  fromY: number,
  toY: number,
  count: number,
  thickness: number,
): Shape {
  const { rng, palette: p } = ctx;
  let d = "";
  for (let i = 0; i < count; i++) {
    const t = i / count;
    const y = fromY + (toY - fromY) * (0.01 + t ** 1.25 * 0.97);
    const half = light.r * (0.35 + 1.3 * t) * rng.between(0.45, 1.1);
    const x = light.x + rng.between(-0.3, 0.3) * light.r * t;
    d += buildPolylinePath([
      [x - half, y],
      [x + half, y],
    ]);
  }
  return {
    layer: "ground",
    role: "reflection",
    glow: true,
    d,
    stroke: { color: p.sun, width: thickness, opacity: 0.75 },
  };
}

export function buildLake(ctx: SceneContext, cx: number, cy: number, rx: number, ry: number, light: Light): Shape[] {
  const { rng, palette: p } = ctx;
  const shapes: Shape[] = [
    {
      layer: "ground",
      role: "water",
      outline: true,
      d: buildBlobPath(rng, cx, cy, rx, ry, 0.08, 12),
      fill: vertical(mixColors(p.water, p.skyHorizon, 0.55), p.water, 2),
    },
  ];
  if (light.kind !== "none" && Math.abs(light.x - cx) < rx * 0.7) {
    shapes.push(
      buildReflection(
        ctx,
        { ...light, x: cx + (light.x - cx) * 0.8, r: Math.min(light.r, rx * 0.2) },
        cy - ry * 0.55,
        cy + ry * 0.6,
        8,
        ry * 0.07,
      ),
    );
  }
  return shapes;
}

/** A river that winds from the horizon and widens toward the viewer. */
export function buildRiver(ctx: SceneContext, startY: number): RiverShape {
  const { rng, width, height, unit, palette: p } = ctx;
  const x0 = width * rng.between(0.35, 0.65);
  const bend = width * rng.between(0.08, 0.16);
  const drift = width * rng.between(-0.15, 0.15);
  const freq = rng.between(1.2, 2.2);
  const phase = rng.between(0, Math.PI * 2);
  const endY = height + unit * 0.05;
  const findCenter = (t: number): number => x0 + Math.sin(t * Math.PI * freq + phase) * bend * t + drift * t;
  const findHalfWidth = (t: number): number => unit * 0.006 + unit * 0.17 * t ** 1.6;
  const findY = (t: number): number => startY + (endY - startY) * t;
  const left: Point[] = [];
  const right: Point[] = [];
  const n = 16;
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    left.push([findCenter(t) - findHalfWidth(t), findY(t)]);
    right.push([findCenter(t) + findHalfWidth(t), findY(t)]);
  }
  const d = buildSmoothPath([...left, ...right.reverse()], true);
  return {
    shapes: [
      {
        layer: "ground",
        role: "water",
        outline: true,
        d,
        fill: vertical(mixColors(p.water, p.skyHorizon, 0.5), p.water, 2),
      },
    ],
    covers: (x, y) => {
      const t = (y - startY) / (endY - startY);
      return t >= 0 && t <= 1 && Math.abs(x - findCenter(t)) < findHalfWidth(t) + unit * 0.03;
    },
  };
}
