// Trees, cacti, flowers and grass: the foreground objects that make a landscape read as a place.
import { lightenColor, mixColors, type Rgb, WHITE } from "./color";
import {
  buildBlobPath,
  buildCirclePath,
  buildPolygonPath,
  buildPolylinePath,
  formatNumber as f,
  type Point,
} from "./geometry";
import { type Layer, type SceneContext, type Shape, solid, vertical } from "./shapes";

export type TreeKind = "conifer" | "round";

export function buildTree(
  ctx: SceneContext,
  kind: TreeKind,
  x: number,
  baseY: number,
  h: number,
  layer: Layer,
  haze = 0,
): Shape[] {
  const { rng, palette: p, subjects } = ctx;
  const foliage = mixColors(p.foliage, p.skyHorizon, haze);
  const shade = mixColors(p.foliageShade, p.skyHorizon, haze);
  const trunk = mixColors(p.trunk, p.skyHorizon, haze);
  const shapes: Shape[] = [];
  if (kind === "conifer") {
    const tw = h * 0.045;
    shapes.push({
      layer,
      role: "trunk",
      outline: true,
      d: buildPolygonPath([
        [x - tw, baseY],
        [x + tw, baseY],
        [x + tw, baseY - h * 0.2],
        [x - tw, baseY - h * 0.2],
      ]),
      fill: solid(trunk),
    });
    let tiers = "";
    let caps = "";
    for (let k = 0; k < 3; k++) {
      const top = baseY - h + k * h * 0.24;
      const bottom = top + h * 0.42;
      const half = h * (0.15 + k * 0.055) * rng.between(0.9, 1.1);
      tiers += buildPolygonPath([
        [x, top],
        [x + half, bottom],
        [x - half, bottom],
      ]);
      if (subjects.has("snow"))
        caps += buildPolygonPath([
          [x, top],
          [x + half * 0.45, top + h * 0.16],
          [x, top + h * 0.12],
          [x - half * 0.45, top + h * 0.16],
        ]);
    }
    shapes.push({ layer, role: "tree", outline: true, d: tiers, fill: vertical(foliage, shade) });
    if (caps) shapes.push({ layer, role: "snowcap", outline: true, d: caps, fill: solid(p.snow) });
    return shapes;
  }
  const tw = h * 0.05;
  shapes.push({
    layer,
    role: "trunk",
    outline: true,
    d: buildPolygonPath([
      [x - tw * 1.4, baseY],
      [x + tw * 1.4, baseY],
      [x + tw * 0.7, baseY - h * 0.6],
      [x - tw * 0.7, baseY - h * 0.6],
    ]),
    fill: solid(trunk),
  });
  const cy = baseY - h * 0.66;
  const rx = h * 0.34;
  const ry = h * 0.3;
  const crown = subjects.has("snow") ? mixColors(foliage, p.snow, 0.55) : foliage;
  shapes.push({
    layer,
    role: "tree",
    outline: true,
    d: buildBlobPath(rng, x, cy, rx, ry, 0.14, 11),
    fill: vertical(lightenColor(crown, 0.12), shade),
  });
  shapes.push({
    layer,
    role: "shade",
    detail: true,
    d: buildBlobPath(rng, x + rx * 0.25, cy + ry * 0.35, rx * 0.6, ry * 0.45, 0.2, 9),
    fill: solid(shade),
    opacity: 0.55,
  });
  shapes.push({
    layer,
    role: "tree",
    detail: true,
    d: buildBlobPath(rng, x - rx * 0.3, cy - ry * 0.35, rx * 0.35, ry * 0.25, 0.2, 8),
    fill: solid(lightenColor(crown, 0.25)),
    opacity: 0.5,
  });
  return shapes;
}

/** A palm: a leaning, tapering trunk and a crown of drooping fronds. */
export function buildPalm(ctx: SceneContext, x: number, baseY: number, h: number, lean: number, layer: Layer): Shape[] {
  const { rng, palette: p } = ctx;
  const topX = x + lean * h * 0.35;
  const topY = baseY - h;
  const along = (t: number): Point => {
    const u = 1 - t;
    return [
      u * u * x + 2 * u * t * (x + lean * h * 0.02) + t * t * topX,
      u * u * baseY + 2 * u * t * (baseY - h * 0.5) + t * t * topY,
    ];
  };
  const left: Point[] = [];
  const right: Point[] = [];
  for (let i = 0; i <= 8; i++) {
    const t = i / 8;
    const [px, py] = along(t);
    const half = h * (0.045 - 0.02 * t);
    left.push([px - half, py]);
    right.push([px + half, py]);
  }
  let fronds = "";
  const count = rng.int(6, 8);
  for (let i = 0; i < count; i++) {
    const a = -Math.PI * (0.08 + (0.84 * i) / (count - 1)) + rng.between(-0.12, 0.12);
    const len = h * rng.between(0.38, 0.5);
    // Each frond arches up out of the crown and droops to its tip.
    const tip: Point = [topX + Math.cos(a) * len, topY + Math.sin(a) * len * 0.3 + len * 0.55];
    const mid: Point = [topX + Math.cos(a) * len * 0.55, topY + Math.sin(a) * len * 0.5 - len * 0.12];
    const nx = -(tip[1] - topY) / len;
    const ny = (tip[0] - topX) / len;
    const w = len * 0.16;
    fronds +=
      `M${f(topX)} ${f(topY)}Q${f(mid[0] + nx * w)} ${f(mid[1] + ny * w)} ${f(tip[0])} ${f(tip[1])}` +
      `Q${f(mid[0] - nx * w)} ${f(mid[1] - ny * w)} ${f(topX)} ${f(topY)}Z`;
  }
  return [
    {
      layer,
      role: "trunk",
      outline: true,
      d: buildPolygonPath([...left, ...right.reverse()]),
      fill: vertical(lightenColor(p.trunk, 0.25), p.trunk),
    },
    { layer, role: "tree", outline: true, d: fronds, fill: vertical(lightenColor(p.foliage, 0.15), p.foliageShade) },
  ];
}

/** A saguaro: a column and up to two arms that bend upward with a rounded elbow. */
export function buildCactus(ctx: SceneContext, x: number, baseY: number, h: number): Shape {
  const { rng, palette: p } = ctx;
  const w = h * 0.085;
  let d = `M${f(x - w)} ${f(baseY)}V${f(baseY - h + w)}A${f(w)} ${f(w)} 0 0 1 ${f(x + w)} ${f(baseY - h + w)}V${f(baseY)}Z`;
  for (const side of [-1, 1]) {
    if (!rng.chance(0.75)) continue;
    const a = w * 0.72;
    const armY = baseY - h * rng.between(0.3, 0.5);
    const armX = x + side * h * 0.24;
    const top = armY - h * rng.between(0.2, 0.32);
    const inner = armX - side * a;
    const outer = armX + side * a;
    d +=
      `M${f(x)} ${f(armY - a)}L${f(inner)} ${f(armY - a)}L${f(inner)} ${f(top)}` +
      `A${f(a)} ${f(a)} 0 0 ${side > 0 ? 1 : 0} ${f(outer)} ${f(top)}L${f(outer)} ${f(armY - a)}` +
      `Q${f(outer)} ${f(armY + a)} ${f(inner)} ${f(armY + a)}L${f(x)} ${f(armY + a)}Z`;
  }
  const green = mixColors(p.foliage, p.sand, 0.15);
  return { layer: "fore", role: "cactus", outline: true, d, fill: vertical(lightenColor(green, 0.1), p.foliageShade) };
}

/** Flowers scattered over the foreground band, bigger toward the viewer. */
export function buildFlowers(ctx: SceneContext, fromY: number, toY: number): Shape[] {
  const { rng, width, unit, palette: p } = ctx;
  const colors: Rgb[] = [p.accent, p.accent2, lightenColor(p.accent, 0.45), WHITE];
  const petals: string[] = colors.map(() => "");
  let stems = "";
  let centres = "";
  const count = Math.round((width / unit) * 55);
  const spots = Array.from({ length: count }, () => ({ x: rng.between(0, width), t: rng.next() ** 0.8 }));
  spots.sort((a, b) => a.t - b.t);
  for (const { x, t } of spots) {
    const y = fromY + (toY - fromY) * t;
    const s = unit * (0.006 + 0.017 * t);
    stems += buildPolylinePath([
      [x, y],
      [x + rng.between(-0.4, 0.4) * s, y + s * 3],
    ]);
    const c = rng.int(0, colors.length - 1);
    const turn = rng.between(0, Math.PI);
    for (let k = 0; k < 5; k++) {
      const a = turn + (k / 5) * Math.PI * 2;
      petals[c] += buildCirclePath(x + Math.cos(a) * s * 0.62, y + Math.sin(a) * s * 0.62, s * 0.5);
    }
    centres += buildCirclePath(x, y, s * 0.36);
  }
  const shapes: Shape[] = [
    { layer: "fore", role: "stem", d: stems, stroke: { color: p.foliageShade, width: unit * 0.0025 } },
  ];
  colors.forEach((color, i) => {
    if (petals[i]) shapes.push({ layer: "fore", role: "flower", outline: true, d: petals[i], fill: solid(color) });
  });
  shapes.push({ layer: "fore", role: "flower", d: centres, fill: solid(mixColors(p.sun, [250, 200, 40], 0.6)) });
  return shapes;
}

/** Tufts of grass: cheap texture that tells near ground from far. */
export function buildGrass(ctx: SceneContext, findY: (x: number) => number, toY: number): Shape {
  const { rng, width, unit, palette: p } = ctx;
  let d = "";
  for (let i = 0, n = Math.round((width / unit) * 90); i < n; i++) {
    const x = rng.between(0, width);
    const top = findY(x) + unit * 0.015;
    const y = top + (toY - top) * rng.next() ** 0.7;
    const s = unit * (0.008 + 0.02 * ((y - top) / Math.max(1, toY - top)));
    for (let k = -1; k <= 1; k++) {
      d += buildPolylinePath([
        [x + k * s * 0.3, y],
        [x + k * s * 0.6 + rng.between(-0.2, 0.2) * s, y - s * rng.between(0.8, 1.3)],
      ]);
    }
  }
  return {
    layer: "fore",
    role: "grass",
    detail: true,
    d,
    stroke: { color: p.nearShade, width: unit * 0.002, opacity: 0.7 },
  };
}
