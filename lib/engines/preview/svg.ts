// Turns scene shapes into SVG markup under a style treatment; the only module that knows SVG syntax for shapes.
import { formatHex, lightenColor, mixColors, type Rgb, scaleColor } from "./color";
import { formatNumber as f } from "./geometry";
import type { Fill, Role, Shape, Stop } from "./shapes";
import type { Treatment } from "./styles";

export type SvgDocument = { defs: string[]; body: string[]; nextId: number; unit: number; treatment: Treatment };

export function createDocument(unit: number, treatment: Treatment): SvgDocument {
  return { defs: [], body: [], nextId: 0, unit, treatment };
}

export function addDef(doc: SvgDocument, build: (id: string) => string): string {
  const id = `d${doc.nextId++}`;
  doc.defs.push(build(id));
  return id;
}

/** A fill attribute value: a hex colour or a reference to a freshly defined gradient. */
export function paintFill(doc: SvgDocument, fill: Fill, role?: Role): string {
  const t = doc.treatment;
  if (fill.type === "solid") return formatHex(t.grade(fill.color));
  let stops = fill.stops.map((s): Stop => ({ ...s, color: t.grade(s.color) }));
  if (t.fill === "banded") {
    const limit = role === "sky" || role === "glow" ? t.skyBands : t.maxBands;
    stops = bandStops(stops, Math.max(1, Math.min(fill.bands ?? 2, limit)));
  }
  const body = stops.map(formatStop).join("");
  if (fill.type === "radial") {
    return `url(#${addDef(doc, (id) => `<radialGradient id="${id}" cx="${fill.cx ?? 0.5}" cy="${fill.cy ?? 0.5}" r="${fill.r ?? 0.5}">${body}</radialGradient>`)})`;
  }
  const coords = fill.user
    ? `gradientUnits="userSpaceOnUse" x1="0" y1="${f(fill.user.y1)}" x2="0" y2="${f(fill.user.y2)}"`
    : `x1="0" y1="0" x2="${fill.diagonal ? 1 : 0}" y2="1"`;
  return `url(#${addDef(doc, (id) => `<linearGradient id="${id}" ${coords}>${body}</linearGradient>`)})`;
}

export function emitShape(doc: SvgDocument, shape: Shape): void {
  const t = doc.treatment;
  if (t.fill === "line") {
    emitLineArt(doc, shape);
    return;
  }
  const o = shape.opacity ?? 1;
  // fill-opacity and stroke-opacity, not opacity: group opacity makes librsvg composite an offscreen layer per element.
  const fillAlpha = o < 1 ? ` fill-opacity="${formatFraction(o)}"` : "";
  const stroke = shape.stroke
    ? ` stroke="${formatHex(t.grade(shape.stroke.color))}" stroke-width="${f(shape.stroke.width)}" stroke-linecap="round"` +
      ((shape.stroke.opacity ?? 1) * o < 1
        ? ` stroke-opacity="${formatFraction((shape.stroke.opacity ?? 1) * o)}"`
        : "")
    : "";
  const solidObject = shape.outline === true && shape.fill !== undefined;

  if (t.fill === "wash" && shape.fill && shape.role !== "sky") {
    // Offset translucent passes and a darker rim: pigment pooling at the edge of a wet wash.
    const fill = paintFill(doc, shape.fill);
    const j = doc.unit * (shape.role === "flower" ? 0.002 : 0.008);
    doc.body.push(
      `<path d="${shape.d}" fill="${fill}" fill-opacity="${formatFraction(o * 0.6)}" transform="translate(${f(j)} ${f(-j * 0.5)})"/>`,
    );
    doc.body.push(
      `<path d="${shape.d}" fill="${fill}" fill-opacity="${formatFraction(o * 0.5)}" transform="translate(${f(-j * 0.8)} ${f(j * 0.6)})"${stroke}/>`,
    );
    if (shape.outline && shape.fill.type !== "radial") {
      const rim = formatHex(scaleColor(t.grade(pickFirstColor(shape.fill)), 0.72));
      doc.body.push(
        `<path d="${shape.d}" fill="none" stroke="${rim}" stroke-width="${f(doc.unit * 0.0025)}" stroke-opacity="0.35"/>`,
      );
    }
    return;
  }

  let fill = shape.fill;
  if (t.clay && solidObject && shape.role !== "sky") {
    doc.body.push(
      `<path d="${shape.d}" fill="#000" fill-opacity="0.16" transform="translate(${f(doc.unit * 0.009)} ${f(doc.unit * 0.013)})"/>`,
    );
    if (fill?.type === "solid") {
      // A key light from the top left turns flat shapes into rounded, lit objects.
      fill = {
        type: "linear",
        diagonal: true,
        stops: [
          { at: 0, color: lightenColor(fill.color, 0.22) },
          { at: 0.55, color: fill.color },
          { at: 1, color: scaleColor(fill.color, 0.7) },
        ],
      };
    }
  }
  const fillValue = fill ? paintFill(doc, fill, shape.role) : "none";

  if (t.ink && solidObject) {
    const ink = `stroke="${formatHex(t.ink.color)}" stroke-width="${f(doc.unit * t.ink.width * scaleInk(shape.role))}" stroke-linejoin="round"`;
    const inkAlpha = o < 1 ? ` stroke-opacity="${formatFraction(o)}"` : "";
    if (t.misregister) {
      const m = doc.unit * t.misregister;
      doc.body.push(
        `<path d="${shape.d}" fill="${fillValue}"${fillAlpha} transform="translate(${f(m)} ${f(m * 0.6)})"/>`,
      );
      doc.body.push(`<path d="${shape.d}" fill="none" ${ink}${inkAlpha}/>`);
    } else {
      doc.body.push(`<path d="${shape.d}" fill="${fillValue}"${fillAlpha} ${ink}${inkAlpha}/>`);
    }
    return;
  }
  doc.body.push(`<path d="${shape.d}" fill="${fillValue}"${fill ? fillAlpha : ""}${stroke}/>`);
  if (t.neon && solidObject) emitNeonTube(doc, shape);
}

function emitNeonTube(doc: SvgDocument, shape: Shape): void {
  const color: Rgb = NEON_CYAN_ROLES.has(shape.role) ? [0, 234, 255] : [255, 46, 214];
  const w = doc.unit * 0.0022 * scaleInk(shape.role);
  const hex = formatHex(color);
  doc.body.push(
    `<path d="${shape.d}" fill="none" stroke="${hex}" stroke-width="${f(w * 7)}" stroke-opacity="0.12" stroke-linejoin="round"/>`,
  );
  doc.body.push(
    `<path d="${shape.d}" fill="none" stroke="${hex}" stroke-width="${f(w * 3)}" stroke-opacity="0.3" stroke-linejoin="round"/>`,
  );
  doc.body.push(
    `<path d="${shape.d}" fill="none" stroke="${formatHex(lightenColor(color, 0.55))}" stroke-width="${f(w)}" stroke-linejoin="round"/>`,
  );
}

const NEON_CYAN_ROLES: ReadonlySet<Role> = new Set<Role>([
  "building",
  "tree",
  "trunk",
  "water",
  "flower",
  "cactus",
  "moon",
  "snowcap",
]);

// Line art keeps only contours: objects become white cut-outs with black edges so nearer ones hide farther ones.
function emitLineArt(doc: SvgDocument, shape: Shape): void {
  const t = doc.treatment;
  const ink = formatHex(t.ink?.color ?? [0, 0, 0]);
  const width = doc.unit * (t.ink?.width ?? 0.0026);
  if (shape.role === "sky" || shape.glow || shape.role === "snowflake" || shape.role === "window") return;
  if (shape.role === "shade") {
    // Diagonals drawn inside an integer tile: librsvg slows down by two orders of magnitude for rotated or fractional tiles.
    const s = Math.max(4, Math.round(width * 3.2));
    const hatch = addDef(
      doc,
      (id) =>
        `<pattern id="${id}" width="${s}" height="${s}" patternUnits="userSpaceOnUse"><path d="M0 ${s}L${s} 0M-1 1L1 -1M${s - 1} ${s + 1}L${s + 1} ${s - 1}" stroke="${ink}" stroke-width="${f(width * 0.7)}" stroke-opacity="0.6"/></pattern>`,
    );
    doc.body.push(`<path d="${shape.d}" fill="url(#${hatch})"/>`);
    return;
  }
  if (shape.stroke) {
    doc.body.push(
      `<path d="${shape.d}" fill="none" stroke="${ink}" stroke-width="${f(Math.min(shape.stroke.width, width))}" stroke-linecap="round" stroke-opacity="0.75"/>`,
    );
    return;
  }
  if (shape.outline) {
    doc.body.push(
      `<path d="${shape.d}" fill="#fff" stroke="${ink}" stroke-width="${f(width * scaleInk(shape.role))}" stroke-linejoin="round"/>`,
    );
    return;
  }
  if (!shape.detail && shape.role === "flower") doc.body.push(`<path d="${shape.d}" fill="${ink}"/>`);
}

// Small things drawn with full-weight ink turn into black blobs.
function scaleInk(role: Role): number {
  return role === "flower" || role === "snowcap" || role === "trunk" ? 0.5 : 1;
}

/** Cuts a gradient into flat bands: the cel-shaded look. Equal offsets make librsvg switch colour with a hard edge. */
export function bandStops(stops: readonly Stop[], bands: number): Stop[] {
  const out: Stop[] = [];
  for (let i = 0; i < bands; i++) {
    const sample = sampleStops(stops, (i + 0.5) / bands);
    out.push({ ...sample, at: i / bands }, { ...sample, at: (i + 1) / bands });
  }
  return out;
}

function sampleStops(stops: readonly Stop[], at: number): Stop {
  if (at <= stops[0].at) return stops[0];
  for (let i = 1; i < stops.length; i++) {
    const b = stops[i];
    if (at <= b.at) {
      const a = stops[i - 1];
      const t = (at - a.at) / (b.at - a.at || 1);
      return {
        at,
        color: mixColors(a.color, b.color, t),
        opacity: (a.opacity ?? 1) + ((b.opacity ?? 1) - (a.opacity ?? 1)) * t,
      };
    }
  }
  return stops[stops.length - 1];
}

function formatStop(stop: Stop): string {
  const opacity =
    stop.opacity !== undefined && stop.opacity < 1 ? ` stop-opacity="${formatFraction(stop.opacity)}"` : "";
  return `<stop offset="${formatFraction(stop.at)}" stop-color="${formatHex(stop.color)}"${opacity}/>`;
}

function pickFirstColor(fill: Fill): Rgb {
  return fill.type === "solid" ? fill.color : fill.stops[0].color;
}

export function formatFraction(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
