// Settlements: a skyline on the horizon, or a cluster of gabled houses on the hills, with windows lit after dark.
import { convertHsl, lightenColor, mixColors, type Rgb, scaleColor } from "./color";
import { buildPolygonPath, buildRectPath, type Point } from "./geometry";
import type { Palette } from "./palette";
import { type SceneContext, type Shape, solid, vertical } from "./shapes";

export function buildSkyline(ctx: SceneContext, baseY: number): Shape[] {
  const { palette: p, height, width, unit } = ctx;
  // Portrait frames have room for taller towers; wide ones for more of them.
  const tall = height > width ? 1.35 : 1;
  const far = mixColors(p.building, p.skyHorizon, 0.45);
  return [
    ...buildRow(ctx, baseY, far, unit * 0.035, unit * 0.075, unit * 0.09 * tall, unit * 0.3 * tall, false),
    ...buildRow(
      ctx,
      baseY + unit * 0.01,
      p.building,
      unit * 0.05,
      unit * 0.11,
      unit * 0.06 * tall,
      unit * 0.24 * tall,
      true,
    ),
  ];
}

function buildRow(
  ctx: SceneContext,
  baseY: number,
  color: Rgb,
  minW: number,
  maxW: number,
  minH: number,
  maxH: number,
  windows: boolean,
): Shape[] {
  const { rng, width, unit, palette: p } = ctx;
  const shapes: Shape[] = [];
  let lit = "";
  const litShare = p.time === "night" ? 0.5 : p.time === "sunset" ? 0.3 : 0.65;
  let x = -rng.between(0, maxW);
  while (x < width) {
    const w = rng.between(minW, maxW);
    const h = rng.between(minH, maxH);
    const top = baseY - h;
    const outline: Point[] = [
      [x, baseY + unit * 0.05],
      [x, top],
    ];
    const roof = rng.next();
    if (roof < 0.2) outline.push([x + w / 2, top - w * 0.45]);
    else if (roof < 0.4)
      outline.push(
        [x + w * 0.2, top],
        [x + w * 0.2, top - w * 0.25],
        [x + w * 0.8, top - w * 0.25],
        [x + w * 0.8, top],
      );
    else if (roof < 0.52)
      outline.push(
        [x + w * 0.46, top],
        [x + w * 0.46, top - w * 0.6],
        [x + w * 0.54, top - w * 0.6],
        [x + w * 0.54, top],
      );
    outline.push([x + w, top], [x + w, baseY + unit * 0.05]);
    const tone = mixColors(color, p.skyHorizon, rng.between(-0.08, 0.12));
    shapes.push({
      layer: "far",
      role: "building",
      outline: true,
      d: buildPolygonPath(outline),
      fill: vertical(tone, mixColors(tone, [0, 0, 0], 0.25)),
    });
    if (windows) {
      const cw = unit * 0.011;
      const ch = unit * 0.015;
      const gx = unit * 0.02;
      const gy = unit * 0.027;
      const cols = Math.floor((w - gx * 0.5) / gx);
      const margin = (w - cols * gx) / 2 + (gx - cw) / 2;
      for (let row = 0; top + gy * (row + 1) < baseY - gy * 0.5; row++) {
        for (let col = 0; col < cols; col++)
          if (rng.chance(litShare)) lit += buildRectPath(x + margin + col * gx, top + gy * 0.6 + row * gy, cw, ch);
      }
    }
    x += w * rng.between(0.85, 1.05);
  }
  if (lit)
    shapes.push({
      layer: "far",
      role: "window",
      detail: true,
      glow: p.time !== "day",
      d: lit,
      fill: solid(p.window),
      opacity: p.time === "day" ? 0.55 : 0.95,
    });
  return shapes;
}

/** Gabled houses clustered along a ridge, smaller and hazier the farther back they sit. */
export function buildVillage(
  ctx: SceneContext,
  findY: (x: number) => number,
  depth: number,
  count: number,
  scale: number,
): Shape[] {
  const { rng, width, unit, palette: p } = ctx;
  const centre = width * rng.between(0.3, 0.7);
  const houses = Array.from({ length: count }, () => {
    const x = centre + width * 0.22 * (rng.next() + rng.next() - 1) * 1.6;
    return { x, y: findY(x) + depth * rng.between(0.05, 0.6) };
  }).sort((a, b) => a.y - b.y);
  const shapes: Shape[] = [];
  let windows = "";
  for (const { x, y } of houses) {
    const w = unit * rng.between(0.045, 0.075) * scale;
    const wallH = w * rng.between(0.55, 0.8);
    const roofH = w * rng.between(0.4, 0.6);
    const wall = veilColor(p, convertHsl(rng.between(25, 48), rng.between(0.2, 0.4), rng.between(0.72, 0.84)));
    const roof = mixColors(p.roof, p.nearShade, rng.between(0, 0.15));
    const left = x - w / 2;
    shapes.push({
      layer: "ground",
      role: "building",
      outline: true,
      d: buildRectPath(left, y - wallH, w, wallH + unit * 0.004),
      fill: vertical(wall, scaleColor(wall, 0.82)),
    });
    shapes.push({
      layer: "ground",
      role: "building",
      outline: true,
      d: buildPolygonPath([
        [left - w * 0.08, y - wallH],
        [x, y - wallH - roofH],
        [left + w * 1.08, y - wallH],
      ]),
      fill: vertical(lightenColor(roof, 0.12), roof),
    });
    // A door to one side and windows beside it; two windows over a centred door reads as a face.
    const s = w * 0.2;
    const doorLeft = rng.chance(0.5);
    windows += buildRectPath(left + w * (doorLeft ? 0.14 : 0.68), y - wallH * 0.48, s * 0.9, wallH * 0.48);
    windows +=
      buildRectPath(left + w * (doorLeft ? 0.46 : 0.14), y - wallH * 0.62, s, s) +
      buildRectPath(left + w * (doorLeft ? 0.72 : 0.42), y - wallH * 0.62, s, s);
  }
  const lit = p.time !== "day";
  shapes.push({
    layer: "ground",
    role: "window",
    detail: true,
    glow: lit,
    d: windows,
    fill: solid(lit ? p.window : mixColors(p.building, [0, 0, 0], 0.35)),
    opacity: lit ? 0.95 : 0.7,
  });
  return shapes;
}

function veilColor(p: Palette, color: Rgb): Rgb {
  // Houses share the land's light: darker and bluer at night, warmer at dusk.
  return mixColors(color, p.nearShade, p.time === "night" ? 0.7 : p.time === "sunset" ? 0.3 : 0.1);
}
