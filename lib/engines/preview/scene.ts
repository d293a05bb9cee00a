// Composes a landscape from the prompt's subjects: which layers exist, where the horizon and light sit, in paint order.

import { buildSkyline, buildVillage } from "./city";
import { mixColors } from "./color";
import { buildCactus, buildFlowers, buildGrass, buildPalm, buildTree, type TreeKind } from "./flora";
import type { Light, Scene, SceneContext, Shape } from "./shapes";
import {
  buildCityGlow,
  buildClouds,
  buildFogBand,
  buildLight,
  buildSky,
  buildSkyStops,
  buildStars,
  buildWeather,
  placeLight,
} from "./sky";
import { LAND_SUBJECTS, type Subject } from "./subjects";
import {
  buildHill,
  buildHillRidge,
  buildIsland,
  buildLake,
  buildMountains,
  buildRiver,
  buildSea,
  type Ridge,
} from "./terrain";

/** Decisions shared by every layer of one landscape. */
type Layout = {
  has: (subject: Subject) => boolean;
  portrait: boolean;
  horizonY: number;
  /** Height of the tallest mountain above the horizon, 0 without mountains. */
  tallest: number;
  light: Light;
  lightFromLeft: boolean;
};

type Ground = { shapes: Shape[]; near?: Ridge; covers: (x: number, y: number) => boolean };

export function buildLandscape(ctx: SceneContext): Scene {
  const layout = planLayout(ctx);
  const skyStops = buildSkyStops(ctx, layout.horizonY);
  const ground = buildGround(ctx, layout);
  const shapes = [
    ...buildBackdrop(ctx, layout, skyStops),
    ...ground.shapes,
    ...(ground.near ? buildForeground(ctx, layout, ground.near, ground.covers) : []),
    ...buildWeather(ctx, layout.horizonY),
  ];
  return { shapes, horizonY: layout.horizonY, light: layout.light, skyStops };
}

function planLayout(ctx: SceneContext): Layout {
  const { rng, width, height, unit } = ctx;
  const has = pickSubjects(ctx);
  const portrait = height > width * 1.1;
  let horizon = has("sea") ? rng.between(0.5, 0.6) : has("city") ? rng.between(0.62, 0.7) : rng.between(0.56, 0.66);
  // Tall frames keep the horizon a little higher so the foreground is not a thin strip.
  if (portrait) horizon -= 0.03;
  const horizonY = height * horizon;
  const tallest = has("mountain")
    ? Math.min(horizonY - height * 0.1, unit * rng.between(0.32, 0.5) * (portrait ? 1.25 : 1))
    : 0;
  const light = placeLight(ctx, horizonY, tallest);
  const lightFromLeft = light.kind === "none" ? rng.chance(0.5) : light.x < width / 2;
  return { has, portrait, horizonY, tallest, light, lightFromLeft };
}

// Prompts without scenery words still get a composed landscape, varied by the seed rather than left empty.
function pickSubjects(ctx: SceneContext): (subject: Subject) => boolean {
  const { rng, subjects } = ctx;
  const extras = new Set<Subject>();
  if (!LAND_SUBJECTS.some((s) => subjects.has(s))) {
    if (rng.chance(0.5)) extras.add("mountain");
    // Every chance() is a fresh draw: the second of a pair is drawn only when the first fails, so one or neither.
    const plant = rng.chance(0.45) ? "tree" : rng.chance(0.4) ? "forest" : undefined;
    if (plant) extras.add(plant);
    const water = rng.chance(0.25) ? "lake" : rng.chance(0.25) ? "river" : undefined;
    if (water) extras.add(water);
    if (rng.chance(0.3)) extras.add("flower");
  }
  return (subject) => subjects.has(subject) || extras.has(subject);
}

/** Sky, light, clouds and whatever stands on the horizon: mountains, far hills, a skyline. */
function buildBackdrop(ctx: SceneContext, layout: Layout, skyStops: Scene["skyStops"]): Shape[] {
  const { rng, height, unit, palette: p } = ctx;
  const { has, horizonY, tallest, light, lightFromLeft } = layout;
  const shapes: Shape[] = [buildSky(ctx, skyStops)];
  if (p.time === "night" && has("city")) shapes.push(buildCityGlow(ctx, horizonY));
  if (p.time === "night") shapes.push(...buildStars(ctx, horizonY));
  shapes.push(...buildLight(ctx, light), ...buildClouds(ctx, horizonY));
  if (has("mountain")) {
    shapes.push(
      ...buildMountains(
        ctx,
        horizonY + unit * 0.01,
        tallest,
        mixColors(p.rock, p.skyHorizon, 0.4),
        has("snow"),
        lightFromLeft,
      ).shapes,
    );
    if (rng.chance(0.55))
      shapes.push(
        ...buildMountains(
          ctx,
          horizonY + unit * 0.02,
          tallest * rng.between(0.45, 0.65),
          p.rock,
          has("snow"),
          lightFromLeft,
        ).shapes,
      );
  } else if (!has("sea") || rng.chance(0.3)) {
    const far = buildHillRidge(ctx, horizonY + unit * 0.01, unit * rng.between(0.04, 0.11), height + unit);
    shapes.push(buildHill("far", far, p.far, mixColors(p.far, p.mid, 0.4)));
  }
  if (has("fog")) shapes.push({ ...buildFogBand(ctx, horizonY, unit * 0.12), layer: "far" });
  if (has("city")) shapes.push(...buildSkyline(ctx, horizonY + unit * 0.005));
  return shapes;
}

/** The sea with an optional island and shore, or rolling hills with lakes, rivers, far woods and villages. */
function buildGround(ctx: SceneContext, layout: Layout): Ground {
  const { rng, width, height, unit, palette: p } = ctx;
  const { has, horizonY, light } = layout;
  const shapes: Shape[] = [];
  if (has("sea")) {
    shapes.push(...buildSea(ctx, horizonY, light));
    if (!has("mountain") && !has("city") && rng.chance(0.55)) {
      const island = buildIsland(ctx, horizonY);
      shapes.push(island.shape);
      for (let i = 0, n = has("palm") ? rng.int(1, 3) : 0; i < n; i++) {
        const x = island.x + island.halfWidth * rng.between(-0.5, 0.5);
        shapes.push(
          ...buildPalm(
            ctx,
            x,
            island.top + unit * 0.012,
            unit * rng.between(0.05, 0.08),
            rng.between(-0.6, 0.6),
            "ground",
          ),
        );
      }
    }
    const wantsLand = ["forest", "tree", "palm", "flower", "desert", "village"].some((s) => has(s as Subject));
    if (!wantsLand && rng.chance(0.5)) return { shapes, covers: () => false };
    const near = buildHillRidge(
      ctx,
      height - (height - horizonY) * rng.between(0.2, 0.32),
      unit * rng.between(0.03, 0.07),
      height + unit,
    );
    const shore = has("desert") || has("palm") || !wantsLand ? p.sand : p.near;
    shapes.push(buildHill("ground", near, shore, mixColors(shore, p.nearShade, 0.6)));
    if (has("village"))
      shapes.push(...buildVillage(ctx, near.findY, unit * 0.05, Math.round((width / unit) * rng.between(4, 7)), 1.6));
    return { shapes, near, covers: () => false };
  }

  const nearBase = horizonY + (height - horizonY) * rng.between(0.35, 0.55);
  const mid = buildHillRidge(
    ctx,
    horizonY + unit * 0.015,
    unit * (has("city") ? 0.02 : rng.between(0.03, 0.08)),
    height + unit,
  );
  shapes.push(buildHill("ground", mid, p.mid, mixColors(p.mid, p.near, 0.5)));
  if (has("fog")) shapes.push(buildFogBand(ctx, mid.findY(width / 2) + unit * 0.02, unit * 0.1));
  if (has("lake")) {
    const depth = nearBase - horizonY;
    shapes.push(
      ...buildLake(
        ctx,
        width * rng.between(0.3, 0.7),
        horizonY + depth * 0.5,
        width * rng.between(0.22, 0.38),
        Math.min(unit * 0.06, depth * 0.3),
        light,
      ),
    );
  }
  if (has("forest"))
    shapes.push(
      ...plantRow(ctx, mid, nearBase, Math.round((width / unit) * rng.between(16, 24)), [0.05, 0.09], 0.3, () => false),
    );
  if (has("village"))
    shapes.push(
      ...buildVillage(ctx, mid.findY, (nearBase - horizonY) * 0.5, Math.round((width / unit) * rng.between(5, 9)), 1),
    );
  const near = buildHillRidge(ctx, nearBase, unit * rng.between(0.04, 0.1), height + unit);
  shapes.push(buildHill("ground", near, p.near, p.nearShade));
  if (!has("river")) return { shapes, near, covers: () => false };
  const river = buildRiver(ctx, horizonY + unit * 0.025);
  shapes.push(...river.shapes);
  return { shapes, near, covers: river.covers };
}

/** Objects on the nearest ground, placed on the side away from the light so they do not hide it. */
function buildForeground(
  ctx: SceneContext,
  layout: Layout,
  ground: Ridge,
  covers: (x: number, y: number) => boolean,
): Shape[] {
  const { rng, width, height, unit } = ctx;
  const { has, portrait, lightFromLeft } = layout;
  const shapes: Shape[] = [];
  const grassy =
    !has("desert") &&
    !has("snow") &&
    (!has("sea") || ((has("forest") || has("tree") || has("flower")) && !has("palm")));
  if (grassy) shapes.push(buildGrass(ctx, ground.findY, height));
  if (has("forest"))
    shapes.push(
      ...plantRow(ctx, ground, height, Math.round((width / unit) * rng.between(5, 9)), [0.16, 0.28], 0, covers),
    );
  const side = lightFromLeft ? 1 : -1;
  const findBase = (x: number, sink: number): number => Math.min(height - unit * 0.02, ground.findY(x) + unit * sink);
  if (has("palm")) {
    for (let i = 0, n = rng.int(1, 2); i < n; i++) {
      const x = width * (0.5 + side * rng.between(0.18, 0.36));
      const base = findBase(x, rng.between(0.03, 0.1));
      const h = Math.min(base - height * 0.1, unit * rng.between(0.38, 0.55) * (portrait ? 1.15 : 1));
      shapes.push(...buildPalm(ctx, x, base, h, -side * rng.between(0.2, 0.7), "fore"));
    }
  } else if (has("tree")) {
    // "palm trees" names a tree too; one kind of tree in the foreground is enough.
    const x = width * (0.5 + side * rng.between(0.1, 0.28));
    const base = findBase(x, rng.between(0.05, 0.12));
    const h = Math.min(base - height * 0.08, unit * rng.between(0.4, 0.55) * (portrait ? 1.15 : 1));
    shapes.push(...buildTree(ctx, "round", x, base, h, "fore"));
  }
  for (let i = 0, n = has("desert") ? rng.int(1, 3) : 0; i < n; i++) {
    const x = rng.between(0.08, 0.92) * width;
    shapes.push(buildCactus(ctx, x, findBase(x, rng.between(0.03, 0.12)), unit * rng.between(0.1, 0.2)));
  }
  if (has("flower"))
    shapes.push(...buildFlowers(ctx, Math.max(ground.findY(width / 2) + unit * 0.04, height * 0.74), height * 1.01));
  return shapes;
}

function plantRow(
  ctx: SceneContext,
  ridge: Ridge,
  lowest: number,
  count: number,
  size: readonly [number, number],
  haze: number,
  covers: (x: number, y: number) => boolean,
): Shape[] {
  const { rng, width, unit } = ctx;
  const mixed = rng.chance(0.3);
  const trees: { x: number; y: number; h: number; kind: TreeKind }[] = [];
  for (let i = 0; i < count; i++) {
    const x = rng.between(-0.02, 1.02) * width;
    const top = ridge.findY(x) + unit * 0.01;
    const y = top + (lowest - top) * rng.between(0, 0.55);
    if (covers(x, y)) continue;
    const depth = (y - top) / Math.max(1, lowest - top);
    trees.push({
      x,
      y,
      h: unit * rng.between(size[0], size[1]) * (1 + depth * 0.5),
      kind: mixed && rng.chance(0.4) ? "round" : "conifer",
    });
  }
  trees.sort((a, b) => a.y - b.y);
  return trees.flatMap((t) => buildTree(ctx, t.kind, t.x, t.y, t.h, haze > 0 ? "ground" : "fore", haze));
}
