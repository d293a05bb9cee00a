// Finishing layers that give each style its character: grades of light, film artefacts, print textures, frames.
import { convertHsl, formatHex, lightenColor, type Rgb } from "./color";
import {
  buildBlobPath,
  buildCirclePath,
  buildPolygonPath,
  buildPolylinePath,
  buildRectPath,
  buildSparklePath,
  formatNumber as f,
  type Point,
} from "./geometry";
import type { Palette } from "./palette";
import type { Rng } from "./seed";
import type { Scene } from "./shapes";
import type { OverlayName } from "./styles";
import { addDef, formatFraction, paintFill, type SvgDocument } from "./svg";

export type OverlayContext = {
  doc: SvgDocument;
  width: number;
  height: number;
  unit: number;
  rng: Rng;
  scene: Scene;
  palette: Palette;
};

const BUILDERS: Record<OverlayName, (ctx: OverlayContext) => string> = {
  letterbox: ({ width, height }) => {
    const bar = Math.round(height * 0.11);
    return `<path d="${buildRectPath(0, 0, width, bar)}${buildRectPath(0, height - bar, width, bar)}" fill="#000"/>`;
  },
  vignette: (ctx) => buildEdgeFade(ctx, [0, 0, 0], 0.26, 0.26),
  softVignette: (ctx) => buildEdgeFade(ctx, [0, 0, 0], 0.16, 0.24),
  paperEdge: (ctx) => buildEdgeFade(ctx, ctx.doc.treatment.paper ?? [255, 255, 255], 0.9, 0.09),
  grain: (ctx) =>
    buildSpeckle(
      ctx,
      [
        [0, 0, 0],
        [255, 255, 255],
      ],
      0.16,
    ),
  halftone: buildHalftone,
  // Uneven pigment: a few faint translucent blots over sky and land.
  washBlooms: ({ doc, width, height, unit, rng, palette }) => {
    const colors = [palette.skyMid, palette.skyHorizon, palette.near, palette.nearShade];
    let out = "";
    for (let i = 0; i < 14; i++) {
      const color = formatHex(doc.treatment.grade(rng.pick(colors)));
      const r = unit * rng.between(0.08, 0.22);
      out += `<path d="${buildBlobPath(rng, rng.between(0, width), rng.between(0, height), r, r * rng.between(0.6, 1), 0.25, 9)}" fill="${color}" fill-opacity="${formatFraction(rng.between(0.07, 0.13))}"/>`;
    }
    return out;
  },
  // Radial gradients cost ~10 ms per megapixel in librsvg, so they are drawn on circles no bigger than their reach.
  lightLeak: ({ doc, width, height, unit, rng }) => {
    const leaks: [number, number, number, Rgb, number][] = [
      [
        rng.chance(0.5) ? 0 : width,
        height * rng.between(0.1, 0.6),
        unit * 0.55,
        convertHsl(rng.between(8, 28), 1, 0.58),
        0.65,
      ],
      [
        rng.between(0, width),
        rng.chance(0.5) ? 0 : height,
        unit * 0.32,
        convertHsl(rng.between(35, 50), 1, 0.62),
        0.35,
      ],
    ];
    return leaks
      .map(([x, y, r, color, strength]) => {
        const hex = formatHex(color);
        const id = addDef(
          doc,
          (id) =>
            `<radialGradient id="${id}"><stop offset="0" stop-color="${hex}" stop-opacity="${strength}"/><stop offset="0.45" stop-color="${hex}" stop-opacity="${formatFraction(strength * 0.35)}"/><stop offset="1" stop-color="${hex}" stop-opacity="0"/></radialGradient>`,
        );
        return `<path d="${buildCirclePath(x, y, r)}" fill="url(#${id})"/>`;
      })
      .join("");
  },
  rays: ({ doc, width, height, unit, rng, scene, palette }) => {
    const { light } = scene;
    const origin: Point = light.kind === "none" ? [width * rng.between(0.2, 0.8), -unit * 0.1] : [light.x, light.y];
    const reach = Math.max(width, height) * 1.6;
    let d = "";
    const count = rng.int(7, 11);
    const start = rng.between(0, Math.PI * 2);
    for (let i = 0; i < count; i++) {
      const a = start + (i / count) * Math.PI * 2 + rng.between(-0.2, 0.2);
      const spread = rng.between(0.03, 0.07);
      d += buildPolygonPath([
        origin,
        [origin[0] + Math.cos(a - spread) * reach, origin[1] + Math.sin(a - spread) * reach],
        [origin[0] + Math.cos(a + spread) * reach, origin[1] + Math.sin(a + spread) * reach],
      ]);
    }
    const glow = formatHex(doc.treatment.grade(lightenColor(palette.sunGlow, 0.4)));
    const id = addDef(
      doc,
      (id) =>
        `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${f(origin[0])}" cy="${f(origin[1])}" r="${f(unit * 1.1)}"><stop offset="0" stop-color="${glow}" stop-opacity="0.32"/><stop offset="0.35" stop-color="${glow}" stop-opacity="0.14"/><stop offset="1" stop-color="${glow}" stop-opacity="0"/></radialGradient>`,
    );
    return `<path d="${d}" fill="url(#${id})"/>`;
  },
  sparkles: ({ doc, width, height, unit, rng, scene, palette }) => {
    let stars = "";
    let motes = "";
    for (let i = 0, n = rng.int(10, 20); i < n; i++) {
      const x = rng.between(0.03, 0.97) * width;
      const y = rng.between(0.04, 0.95) * Math.min(scene.horizonY, height * 0.8);
      if (rng.chance(0.45)) stars += buildSparklePath(x, y, unit * rng.between(0.006, 0.016));
      else motes += buildCirclePath(x, y, unit * rng.between(0.002, 0.005));
    }
    const color = formatHex(doc.treatment.grade(lightenColor(palette.sunGlow, 0.6)));
    return `<path d="${stars}" fill="${color}" fill-opacity="0.9"/><path d="${motes}" fill="${color}" fill-opacity="0.7"/>`;
  },
  haze: ({ doc, width, unit, scene, palette }) => {
    const top = scene.horizonY - unit * 0.2;
    return `<path d="${buildRectPath(-2, top, width + 4, unit * 0.32)}" fill="${paintFill(doc, {
      type: "linear",
      stops: [
        { at: 0, color: lightenColor(palette.skyHorizon, 0.2), opacity: 0 },
        { at: 0.62, color: lightenColor(palette.skyHorizon, 0.2), opacity: 0.5 },
        { at: 1, color: lightenColor(palette.skyHorizon, 0.2), opacity: 0 },
      ],
    })}"/>`;
  },
  sunlight: ({ doc, unit, scene, palette }) => {
    const { light } = scene;
    if (light.kind === "none") return "";
    const glow = formatHex(doc.treatment.grade(palette.sunGlow));
    const strength = light.kind === "moon" ? 0.16 : 0.36;
    const id = addDef(
      doc,
      (id) =>
        `<radialGradient id="${id}"><stop offset="0" stop-color="${glow}" stop-opacity="${strength}"/><stop offset="1" stop-color="${glow}" stop-opacity="0"/></radialGradient>`,
    );
    return `<path d="${buildCirclePath(light.x, light.y, unit * 0.6)}" fill="url(#${id})"/>`;
  },
  flare: ({ doc, width, unit, scene }) => {
    const { light } = scene;
    if (light.kind === "none" || light.y > scene.horizonY) return "";
    const id = addDef(
      doc,
      (id) =>
        `<radialGradient id="${id}"><stop offset="0" stop-color="#e6f6ff" stop-opacity="0.9"/><stop offset="0.35" stop-color="#6fc3ff" stop-opacity="0.35"/><stop offset="1" stop-color="#2a8cff" stop-opacity="0"/></radialGradient>`,
    );
    return `<path d="${buildRectPath(light.x - width * 0.55, light.y - unit * 0.008, width * 1.1, unit * 0.016)}" fill="url(#${id})"/><path d="${buildRectPath(light.x - width * 0.3, light.y - unit * 0.03, width * 0.6, unit * 0.06)}" fill="url(#${id})" fill-opacity="0.3"/>`;
  },
  bloom: ({ doc, unit, scene, palette }) => {
    const { light } = scene;
    if (light.kind === "none") return "";
    const glow = formatHex(doc.treatment.grade(lightenColor(palette.sunGlow, 0.3)));
    const id = addDef(
      doc,
      (id) =>
        `<radialGradient id="${id}"><stop offset="0" stop-color="${glow}" stop-opacity="0.5"/><stop offset="0.4" stop-color="${glow}" stop-opacity="0.18"/><stop offset="1" stop-color="${glow}" stop-opacity="0"/></radialGradient>`,
    );
    return `<path d="${buildCirclePath(light.x, light.y, unit * 0.6)}" fill="url(#${id})"/>`;
  },
  neonGrid: ({ width, height, unit, scene }) => {
    const top = scene.horizonY;
    let d = "";
    for (let k = 1; k <= 14; k++) {
      const y = top + (height - top) * (k / 14) ** 2.2;
      d += buildPolylinePath([
        [0, y],
        [width, y],
      ]);
    }
    const vx = width / 2;
    for (let k = -12; k <= 12; k++)
      d += buildPolylinePath([
        [vx, top],
        [vx + k * width * 0.14, height],
      ]);
    const w = unit * 0.0018;
    return `<path d="${d}" fill="none" stroke="#00eaff" stroke-width="${f(w * 4)}" stroke-opacity="0.12"/><path d="${d}" fill="none" stroke="#7ff6ff" stroke-width="${f(w)}" stroke-opacity="0.5"/>`;
  },
  neonSun: ({ doc, height, scene }) => {
    const { light } = scene;
    if (light.kind !== "sun") return "";
    // Stripes painted with the sky gradient itself, so they read as cut-outs in the disc.
    const sky = paintFill(doc, { type: "linear", stops: scene.skyStops, user: { y1: 0, y2: height }, bands: 6 });
    let d = "";
    for (let k = 0; k < 6; k++) {
      const y = light.y + light.r * (0.08 + k * 0.16);
      const h = light.r * (0.03 + k * 0.022);
      const half = Math.sqrt(Math.max(0, light.r * light.r - (y - light.y) ** 2)) + 1;
      d += buildRectPath(light.x - half, y, half * 2, h);
    }
    return `<path d="${d}" fill="${sky}"/>`;
  },
};

export function buildOverlay(name: OverlayName, ctx: OverlayContext): string {
  return BUILDERS[name](ctx);
}

// Four linear edge fades instead of one radial: nearly the same look at a fraction of the raster cost.
function buildEdgeFade(
  { doc, width, height, unit }: OverlayContext,
  color: Rgb,
  strength: number,
  depth: number,
): string {
  const hex = formatHex(color);
  const stops = `<stop offset="0" stop-color="${hex}" stop-opacity="${formatFraction(strength)}"/><stop offset="1" stop-color="${hex}" stop-opacity="0"/>`;
  const down = addDef(doc, (id) => `<linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1">${stops}</linearGradient>`);
  const up = addDef(doc, (id) => `<linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">${stops}</linearGradient>`);
  const right = addDef(doc, (id) => `<linearGradient id="${id}" x1="0" y1="0" x2="1" y2="0">${stops}</linearGradient>`);
  const left = addDef(doc, (id) => `<linearGradient id="${id}" x1="1" y1="0" x2="0" y2="0">${stops}</linearGradient>`);
  const band = unit * depth;
  return (
    `<path d="${buildRectPath(0, 0, width, band)}" fill="url(#${down})"/>` +
    `<path d="${buildRectPath(0, height - band, width, band)}" fill="url(#${up})"/>` +
    `<path d="${buildRectPath(0, 0, band, height)}" fill="url(#${right})"/>` +
    `<path d="${buildRectPath(width - band, 0, band, height)}" fill="url(#${left})"/>`
  );
}

// A small random tile repeated by the renderer: texture for the price of one pattern fill.
function buildSpeckle({ doc, width, height, rng }: OverlayContext, colors: Rgb[], strength: number): string {
  const size = 128;
  const dots: string[] = colors.map(() => "");
  // Sparse specks: dense noise would triple the PNG size and its encode time.
  for (let i = 0; i < 170; i++) {
    const s = rng.between(0.8, 1.8);
    dots[rng.int(0, colors.length - 1)] += buildRectPath(rng.between(0, size), rng.between(0, size), s, s);
  }
  // Integer tile, and fill-opacity inside it: fractional tiles or per-element opacity make librsvg 10–100× slower.
  const tile = dots
    .map((d, i) => `<path d="${d}" fill="${formatHex(colors[i])}" fill-opacity="${formatFraction(strength)}"/>`)
    .join("");
  const id = addDef(
    doc,
    (id) => `<pattern id="${id}" width="${size}" height="${size}" patternUnits="userSpaceOnUse">${tile}</pattern>`,
  );
  return `<path d="${buildRectPath(0, 0, width, height)}" fill="url(#${id})"/>`;
}

// Print dots that shrink away from the frame edges, like a comic's shaded sky and floor.
function buildHalftone({ doc, width, height, unit }: OverlayContext): string {
  const cell = Math.max(6, Math.round(unit * 0.014));
  const bands: [number, number, number][] = [
    [0, 0.1, 0.34],
    [0.1, 0.2, 0.25],
    [0.2, 0.3, 0.15],
    [0.82, 0.9, 0.18],
    [0.9, 1, 0.3],
  ];
  return bands
    .map(([from, to, radius]) => {
      const r = f(cell * radius);
      const id = addDef(
        doc,
        (id) =>
          `<pattern id="${id}" width="${f(cell)}" height="${f(cell)}" patternUnits="userSpaceOnUse"><circle cx="${f(cell / 4)}" cy="${f(cell / 4)}" r="${r}" fill-opacity="0.28"/><circle cx="${f((cell * 3) / 4)}" cy="${f((cell * 3) / 4)}" r="${r}" fill-opacity="0.28"/></pattern>`,
      );
      return `<path d="${buildRectPath(0, height * from, width, height * (to - from))}" fill="url(#${id})"/>`;
    })
    .join("");
}
