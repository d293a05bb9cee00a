// Path builders for the scene modules; everything becomes path data so every style can fill, trace or wash it alike.
import type { Rng } from "./seed";

export type Point = readonly [number, number];

// One decimal is sub-pixel accurate and keeps the SVG (and its parse time) small.
export function formatNumber(value: number): string {
  return String(Math.round(value * 10) / 10);
}

const f = formatNumber;

export function buildPolygonPath(points: readonly Point[]): string {
  return `${buildPolylinePath(points)}Z`;
}

export function buildPolylinePath(points: readonly Point[]): string {
  let d = "";
  for (let i = 0; i < points.length; i++) d += `${i === 0 ? "M" : "L"}${f(points[i][0])} ${f(points[i][1])}`;
  return d;
}

// Catmull-Rom through the points gives natural hills and blobs without hand-placed control points.
export function buildSmoothPath(points: readonly Point[], closed: boolean): string {
  const n = points.length;
  const at = (i: number): Point => (closed ? points[(i + n) % n] : points[Math.min(n - 1, Math.max(0, i))]);
  let d = `M${f(points[0][0])} ${f(points[0][1])}`;
  const segments = closed ? n : n - 1;
  for (let i = 0; i < segments; i++) {
    const p0 = at(i - 1);
    const p1 = at(i);
    const p2 = at(i + 1);
    const p3 = at(i + 2);
    d +=
      "C" +
      f(p1[0] + (p2[0] - p0[0]) / 6) +
      " " +
      f(p1[1] + (p2[1] - p0[1]) / 6) +
      " " +
      f(p2[0] - (p3[0] - p1[0]) / 6) +
      " " +
      f(p2[1] - (p3[1] - p1[1]) / 6) +
      " " +
      f(p2[0]) +
      " " +
      f(p2[1]);
  }
  return closed ? `${d}Z` : d;
}

/** A circle as two arcs, so many circles can share one <path> element. */
export function buildCirclePath(cx: number, cy: number, r: number): string {
  return buildEllipsePath(cx, cy, r, r);
}

export function buildEllipsePath(cx: number, cy: number, rx: number, ry: number): string {
  const x = f(rx);
  const y = f(ry);
  return `M${f(cx - rx)} ${f(cy)}a${x} ${y} 0 1 0 ${f(2 * rx)} 0a${x} ${y} 0 1 0 ${f(-2 * rx)} 0Z`;
}

export function buildRectPath(x: number, y: number, width: number, height: number): string {
  return `M${f(x)} ${f(y)}h${f(width)}v${f(height)}h${f(-width)}Z`;
}

/** A lumpy closed outline: tree canopies, bushes, lakes. */
export function buildBlobPath(
  rng: Rng,
  cx: number,
  cy: number,
  rx: number,
  ry: number,
  lumpiness: number,
  count: number,
): string {
  const points: Point[] = [];
  const phase = rng.between(0, Math.PI * 2);
  for (let i = 0; i < count; i++) {
    const angle = phase + (i / count) * Math.PI * 2;
    const k = 1 + rng.between(-lumpiness, lumpiness);
    points.push([cx + Math.cos(angle) * rx * k, cy + Math.sin(angle) * ry * k]);
  }
  return buildSmoothPath(points, true);
}

/** A cumulus: round bumps along the top, flat underneath. */
export function buildCloudPath(rng: Rng, x: number, baseY: number, width: number, height: number): string {
  const bumps = rng.int(3, 5);
  const points: Point[] = [[x, baseY]];
  for (let i = 1; i < bumps; i++) {
    const t = i / bumps;
    const lift = Math.sin(t * Math.PI) * height * rng.between(0.7, 1);
    points.push([x + width * (t + rng.between(-0.04, 0.04)), baseY - lift]);
  }
  points.push([x + width, baseY]);
  let d = `M${f(x)} ${f(baseY)}`;
  for (let i = 1; i < points.length; i++) {
    const chord = Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]);
    const r = f(chord * rng.between(0.52, 0.7));
    d += `A${r} ${r} 0 0 1 ${f(points[i][0])} ${f(points[i][1])}`;
  }
  return `${d}Z`;
}

/** A four-pointed sparkle. */
export function buildSparklePath(cx: number, cy: number, r: number): string {
  const w = r * 0.22;
  return buildPolygonPath([
    [cx, cy - r],
    [cx + w, cy - w],
    [cx + r, cy],
    [cx + w, cy + w],
    [cx, cy + r],
    [cx - w, cy + w],
    [cx - r, cy],
    [cx - w, cy - w],
  ]);
}

/** Linear interpolation along points sorted by x. */
export function interpolateY(points: readonly Point[], x: number): number {
  if (x <= points[0][0]) return points[0][1];
  for (let i = 1; i < points.length; i++) {
    if (x <= points[i][0]) {
      const [x0, y0] = points[i - 1];
      const [x1, y1] = points[i];
      return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0 || 1);
    }
  }
  return points[points.length - 1][1];
}
