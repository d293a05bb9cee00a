// The Isometric preset gets its own composition: a tiled diorama block whose tiles carry the prompt's subjects.
import { BLACK, convertHsl, lightenColor, mixColors, type Rgb, scaleColor, WHITE } from "./color";
import { buildCactus } from "./flora";
import { buildCirclePath, buildPolygonPath, buildPolylinePath, type Point } from "./geometry";
import { type Scene, type SceneContext, type Shape, solid, vertical } from "./shapes";
import { buildClouds, buildLight, buildSky, buildSkyStops, buildStars, buildWeather, placeLight } from "./sky";
import { LAND_SUBJECTS, type Subject } from "./subjects";

type Cell = "land" | "water";
type Piece = { depth: number; shapes: Shape[] };

export function buildIsometric(ctx: SceneContext): Scene {
  const { rng, width, height, unit, subjects, palette: p } = ctx;
  const has = (s: Subject): boolean => subjects.has(s);
  const n = rng.int(6, 8);
  const half = Math.min(width * (height > width ? 0.46 : 0.4), height * 0.55);
  const tile = half / n;
  const cx = width / 2;
  const cy = height * (height > width ? 0.6 : 0.58);
  const project = (i: number, j: number): Point => [cx + (i - j) * tile, cy - half / 2 + ((i + j) * tile) / 2];
  const raise = (pt: Point, h: number): Point => [pt[0], pt[1] - h];
  const outlineTile = (i0: number, j0: number, i1: number, j1: number, h = 0): string =>
    buildPolygonPath([
      raise(project(i0, j0), h),
      raise(project(i1, j0), h),
      raise(project(i1, j1), h),
      raise(project(i0, j1), h),
    ]);

  const cells: Cell[][] = Array.from({ length: n }, () => Array.from({ length: n }, (): Cell => "land"));
  const taken: boolean[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => false));
  if (has("sea")) {
    const depth = rng.int(2, 3);
    const alongI = rng.chance(0.5);
    for (let a = 0; a < n; a++) for (let b = n - depth; b < n; b++) cells[alongI ? a : b][alongI ? b : a] = "water";
  }
  if (has("river")) {
    let j = rng.int(1, n - 2);
    for (let i = 0; i < n; i++) {
      cells[i][j] = "water";
      if (rng.chance(0.35)) j = Math.max(0, Math.min(n - 1, j + (rng.chance(0.5) ? 1 : -1)));
      cells[i][j] = "water";
    }
  }
  if (has("lake")) {
    const i0 = rng.int(1, n - 4);
    const j0 = rng.int(1, n - 4);
    for (let i = i0; i < i0 + 3; i++) for (let j = j0; j < j0 + 2; j++) cells[i][j] = "water";
  }

  const pieces: Piece[] = [];
  let shadows = "";
  const isFree = (i: number, j: number): boolean => cells[i][j] === "land" && !taken[i][j];

  if (has("mountain")) {
    const k = Math.min(3, n - 3);
    const i0 = rng.int(0, 1);
    const j0 = rng.int(0, 1);
    for (let i = i0; i < i0 + k; i++)
      for (let j = j0; j < j0 + k; j++) {
        cells[i][j] = "land";
        taken[i][j] = true;
      }
    const apex = raise(project(i0 + k / 2, j0 + k / 2), tile * k * rng.between(1.1, 1.5));
    const left = project(i0, j0 + k);
    const front = project(i0 + k, j0 + k);
    const right = project(i0 + k, j0);
    const outlineCap = (a: Point, b: Point, t: number): Point[] => [
      apex,
      mixPoint(apex, b, t),
      mixPoint(mixPoint(apex, a, t), mixPoint(apex, b, t), 0.5),
      mixPoint(apex, a, t),
    ];
    const shapes: Shape[] = [
      { layer: "fore", role: "mountain", d: buildPolygonPath([left, front, apex]), fill: solid(p.rock) },
      {
        layer: "fore",
        role: "mountain",
        d: buildPolygonPath([front, right, apex]),
        fill: solid(scaleColor(p.rock, 0.7)),
      },
    ];
    const t = has("snow") ? 0.5 : 0.3;
    shapes.push({
      layer: "fore",
      role: "snowcap",
      d: buildPolygonPath(outlineCap(left, front, t)),
      fill: solid(p.snow),
    });
    shapes.push({
      layer: "fore",
      role: "snowcap",
      d: buildPolygonPath(outlineCap(right, front, t).reverse()),
      fill: solid(scaleColor(p.snow, 0.82)),
    });
    pieces.push({ depth: i0 + j0 + 2 * (k - 1), shapes });
  }

  const city = has("city") || has("village");
  const towers = has("city") ? 2.6 : 0.9;
  const forest = has("forest");
  const bare = !LAND_SUBJECTS.some(has);
  const flowerDots: string[] = ["", "", ""];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (!isFree(i, j)) continue;
      const roll = rng.next();
      const centre = project(i + 0.5, j + 0.5);
      if (city && roll < (forest ? 0.35 : 0.55)) {
        const h = tile * rng.between(0.5, towers) * (height > width ? 1.3 : 1);
        pieces.push({
          depth: i + j,
          shapes: buildBox(
            ctx,
            project,
            i + 0.1,
            j + 0.1,
            i + 0.9,
            j + 0.9,
            h,
            mixColors(p.building, p.skyHorizon, rng.between(0, 0.25)),
          ),
        });
        shadows += outlineTile(i + 0.1, j + 0.1, Math.min(n, i + 0.9 + h / tile / 2), j + 0.9);
      } else if ((forest && roll < 0.6) || ((has("tree") || has("palm")) && roll < 0.25) || (bare && roll < 0.22)) {
        const h = tile * rng.between(0.9, 1.5);
        pieces.push({
          depth: i + j,
          shapes:
            forest && rng.chance(0.8) ? buildCone(ctx, centre, tile * 0.32, h) : buildBall(ctx, centre, tile * 0.36, h),
        });
        shadows += outlineTile(i + 0.2, j + 0.25, Math.min(n, i + 0.8 + h / tile / 3), j + 0.75);
      } else if (has("desert") && roll < 0.15) {
        pieces.push({
          depth: i + j,
          shapes: [{ ...buildCactus(ctx, centre[0], centre[1], tile * 0.9), outline: false }],
        });
      } else if ((has("flower") && roll < 0.75) || (bare && roll < 0.4)) {
        for (let k = 0; k < 5; k++)
          flowerDots[k % 3] += buildCirclePath(
            ...project(i + rng.between(0.15, 0.85), j + rng.between(0.15, 0.85)),
            tile * 0.07,
          );
      } else if (roll > 0.93) {
        pieces.push({
          depth: i + j,
          shapes: buildBox(ctx, project, i + 0.3, j + 0.3, i + 0.7, j + 0.6, tile * 0.2, mixColors(p.rock, WHITE, 0.2)),
        });
      }
    }
  }

  const horizonY = height * 0.5;
  const light = placeLight(ctx, horizonY);
  const lightShown =
    light.kind === "none" ? light : { ...light, y: Math.min(light.y, height * 0.22), r: light.r * 0.8 };
  const skyStops = buildSkyStops(ctx, height * 0.85);
  const shapes: Shape[] = [buildSky(ctx, skyStops)];
  if (p.time === "night") shapes.push(...buildStars(ctx, height));
  shapes.push(...buildLight(ctx, lightShown), ...buildClouds(ctx, height * 0.35));

  // The block itself: soil sides under a strip of turf, then the tiled top.
  const thick = tile * 1.1;
  const lip = thick * 0.22;
  const soil = convertHsl(24, 0.32, p.time === "night" ? 0.16 : 0.34);
  const turf = has("desert") ? p.sand : p.near;
  const outlineSide = (a: Point, b: Point, from: number, to: number): string =>
    buildPolygonPath([raise(a, -from), raise(b, -from), raise(b, -to), raise(a, -to)]);
  shapes.push({
    layer: "ground",
    role: "block",
    d: outlineSide(project(0, n), project(n, n), lip, thick),
    fill: vertical(soil, scaleColor(soil, 0.8)),
  });
  shapes.push({
    layer: "ground",
    role: "block",
    d: outlineSide(project(n, 0), project(n, n), lip, thick),
    fill: vertical(scaleColor(soil, 0.7), scaleColor(soil, 0.55)),
  });
  shapes.push({
    layer: "ground",
    role: "block",
    d: outlineSide(project(0, n), project(n, n), 0, lip),
    fill: solid(scaleColor(turf, 0.85)),
  });
  shapes.push({
    layer: "ground",
    role: "block",
    d: outlineSide(project(n, 0), project(n, n), 0, lip),
    fill: solid(scaleColor(turf, 0.62)),
  });

  let landEven = "";
  let landOdd = "";
  let water = "";
  let ripples = "";
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const d = outlineTile(i, j, i + 1, j + 1);
      if (cells[i][j] === "water") {
        water += d;
        const [x, y] = project(i + rng.between(0.3, 0.6), j + rng.between(0.3, 0.6));
        ripples += buildPolylinePath([
          [x, y],
          [x + tile * 0.3, y + tile * 0.15],
        ]);
      } else if ((i + j) % 2 === 0) landEven += d;
      else landOdd += d;
    }
  }
  const grid = { color: mixColors(turf, BLACK, 0.25), width: unit * 0.0012, opacity: 0.35 };
  shapes.push({ layer: "ground", role: "hill", d: landEven, fill: solid(turf), stroke: grid });
  if (landOdd)
    shapes.push({ layer: "ground", role: "hill", d: landOdd, fill: solid(lightenColor(turf, 0.06)), stroke: grid });
  if (water) {
    shapes.push({
      layer: "ground",
      role: "water",
      d: water,
      fill: vertical(lightenColor(p.water, 0.15), p.water),
      stroke: { ...grid, color: scaleColor(p.water, 0.8) },
    });
    shapes.push({
      layer: "ground",
      role: "wave",
      detail: true,
      d: ripples,
      stroke: { color: lightenColor(p.water, 0.5), width: unit * 0.003, opacity: 0.7 },
    });
  }
  if (shadows)
    shapes.push({ layer: "ground", role: "shade", detail: true, d: shadows, fill: solid(BLACK), opacity: 0.16 });
  const dotColors: Rgb[] = [p.accent, p.accent2, WHITE];
  flowerDots.forEach((d, k) => {
    if (d) shapes.push({ layer: "ground", role: "flower", d, fill: solid(dotColors[k]) });
  });
  pieces.sort((a, b) => a.depth - b.depth);
  for (const piece of pieces) shapes.push(...piece.shapes);
  shapes.push(...buildWeather(ctx, height * 0.9));
  return { shapes, horizonY: cy, light: lightShown, skyStops };
}

// Top face lit, left face in half light, right face in shade: the whole look of the preset.
function buildBox(
  ctx: SceneContext,
  project: (i: number, j: number) => Point,
  i0: number,
  j0: number,
  i1: number,
  j1: number,
  h: number,
  color: Rgb,
): Shape[] {
  const { rng, unit, palette: p } = ctx;
  const lift = (pt: Point): Point => [pt[0], pt[1] - h];
  const shapes: Shape[] = [
    {
      layer: "fore",
      role: "building",
      d: buildPolygonPath([project(i0, j1), project(i1, j1), lift(project(i1, j1)), lift(project(i0, j1))]),
      fill: solid(color),
    },
    {
      layer: "fore",
      role: "building",
      d: buildPolygonPath([project(i1, j0), project(i1, j1), lift(project(i1, j1)), lift(project(i1, j0))]),
      fill: solid(scaleColor(color, 0.7)),
    },
    {
      layer: "fore",
      role: "building",
      d: buildPolygonPath([lift(project(i0, j0)), lift(project(i1, j0)), lift(project(i1, j1)), lift(project(i0, j1))]),
      fill: solid(lightenColor(color, 0.25)),
    },
  ];
  const floor = unit * 0.022;
  if (h < floor * 2) return shapes;
  let windows = "";
  const faces: [Point, Point][] = [
    [project(i0, j1), project(i1, j1)],
    [project(i1, j1), project(i1, j0)],
  ];
  for (const [a, b] of faces) {
    for (let y = floor * 0.8; y < h - floor * 0.6; y += floor) {
      for (const u of [0.2, 0.6]) {
        if (!rng.chance(p.time === "day" ? 0.8 : 0.55)) continue;
        const s = mixPoint(a, b, u);
        const e = mixPoint(a, b, u + 0.22);
        windows += buildPolygonPath([
          [s[0], s[1] - y],
          [e[0], e[1] - y],
          [e[0], e[1] - y - floor * 0.5],
          [s[0], s[1] - y - floor * 0.5],
        ]);
      }
    }
  }
  if (windows)
    shapes.push({
      layer: "fore",
      role: "window",
      detail: true,
      glow: p.time !== "day",
      d: windows,
      fill: solid(p.window),
      opacity: p.time === "day" ? 0.6 : 0.95,
    });
  return shapes;
}

function buildCone(ctx: SceneContext, base: Point, r: number, h: number): Shape[] {
  const { palette: p } = ctx;
  const [x, y] = base;
  const apex: Point = [x, y - h];
  const front: Point = [x, y + r * 0.5];
  return [
    {
      layer: "fore",
      role: "trunk",
      d: buildPolygonPath([
        [x - r * 0.12, y + r * 0.2],
        [x + r * 0.12, y + r * 0.2],
        [x + r * 0.12, y - h * 0.2],
        [x - r * 0.12, y - h * 0.2],
      ]),
      fill: solid(p.trunk),
    },
    {
      layer: "fore",
      role: "tree",
      d: buildPolygonPath([apex, [x - r, y], front]),
      fill: solid(lightenColor(p.foliage, 0.1)),
    },
    { layer: "fore", role: "tree", d: buildPolygonPath([apex, front, [x + r, y]]), fill: solid(p.foliageShade) },
  ];
}

function buildBall(ctx: SceneContext, base: Point, r: number, h: number): Shape[] {
  const { palette: p } = ctx;
  const [x, y] = base;
  return [
    {
      layer: "fore",
      role: "trunk",
      d: buildPolygonPath([
        [x - r * 0.14, y + r * 0.15],
        [x + r * 0.14, y + r * 0.15],
        [x + r * 0.1, y - h * 0.55],
        [x - r * 0.1, y - h * 0.55],
      ]),
      fill: solid(p.trunk),
    },
    {
      layer: "fore",
      role: "tree",
      d: buildCirclePath(x, y - h + r, r),
      fill: {
        type: "radial",
        cx: 0.35,
        cy: 0.32,
        r: 0.75,
        stops: [
          { at: 0, color: lightenColor(p.foliage, 0.3) },
          { at: 0.55, color: p.foliage },
          { at: 1, color: p.foliageShade },
        ],
        bands: 3,
      },
    },
  ];
}

function mixPoint(a: Point, b: Point, t: number): Point {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}
