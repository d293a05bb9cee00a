// The mask painter's pure logic: where a pointer lands on a CSS-scaled canvas, the strokes with undo and clear, the
// mask's working size, and the painted layer turned into the contract's mask (white = change, on black).

export type Point = { x: number; y: number };
export type Size = { width: number; height: number };
export type Box = { left: number; top: number; width: number; height: number };

/** "paint" marks an area to change; "erase" takes marks away again. */
export type BrushMode = "paint" | "erase";
/** `size` is the brush diameter in canvas pixels, fixed when the stroke starts. */
export type Stroke = { mode: BrushMode; size: number; points: Point[] };
/** One undoable step: a stroke, or a clear of everything painted before it. */
export type MaskOp = { kind: "stroke"; stroke: Stroke } | { kind: "clear" };

// iOS Safari refuses canvases over 16.7 megapixels; past it the mask is painted smaller and the server scales it
// up to the image's size, as the contract allows.
export const MAX_MASK_PIXELS = 16_000_000;

/** The mask canvas's pixel size: the image's own, or scaled down to fit MAX_MASK_PIXELS. */
export function maskSizeFor(image: Size, maxPixels = MAX_MASK_PIXELS): Size {
  const f = Math.min(1, Math.sqrt(maxPixels / (image.width * image.height)));
  return {
    width: Math.max(1, Math.floor(image.width * f)),
    height: Math.max(1, Math.floor(image.height * f)),
  };
}

/**
 * A pointer's client position as canvas pixels. The canvas is drawn at `canvas` size but shown in `box` (its
 * bounding rectangle, CSS pixels), so both axes are scaled; points off the edge are clamped onto it.
 */
export function toCanvasPoint(client: Point, box: Box, canvas: Size): Point {
  const sx = box.width > 0 ? canvas.width / box.width : 1;
  const sy = box.height > 0 ? canvas.height / box.height : 1;
  const clamp = (v: number, max: number) => Math.min(max, Math.max(0, v));
  return { x: clamp((client.x - box.left) * sx, canvas.width), y: clamp((client.y - box.top) * sy, canvas.height) };
}

/** A brush given in CSS pixels (what the person sees), as canvas pixels at the current display scale. */
export function brushInCanvasPixels(cssSize: number, box: Box, canvas: Size): number {
  const scale = box.width > 0 ? canvas.width / box.width : 1;
  return Math.max(1, cssSize * scale);
}

/** The painter's history: every step kept, so undo is replaying all but the last. Immutable. */
/** Arrow keys as unit directions, for painting with the keyboard. */
export const ARROW_STEPS: Readonly<Record<string, Point>> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

/** `from` moved `stride` canvas pixels in `direction`, kept inside the canvas. */
export function walkPoint(from: Point, direction: Point, stride: number, canvas: Size): Point {
  const clamp = (v: number, max: number) => Math.min(max, Math.max(0, v));
  return {
    x: clamp(from.x + direction.x * stride, canvas.width - 1),
    y: clamp(from.y + direction.y * stride, canvas.height - 1),
  };
}

export type MaskHistory = { ops: MaskOp[] };

export const emptyHistory: MaskHistory = { ops: [] };

export function addStroke(h: MaskHistory, stroke: Stroke): MaskHistory {
  if (stroke.points.length === 0) return h;
  return { ops: [...h.ops, { kind: "stroke", stroke }] };
}

/** A clear is a step like any other, so Undo brings the marks back. Clearing nothing is not a step. */
export function clearMask(h: MaskHistory): MaskHistory {
  return visibleStrokes(h).length === 0 ? h : { ops: [...h.ops, { kind: "clear" }] };
}

export function undo(h: MaskHistory): MaskHistory {
  return h.ops.length === 0 ? h : { ops: h.ops.slice(0, -1) };
}

export const canUndo = (h: MaskHistory) => h.ops.length > 0;

/** The strokes drawn since the last clear, oldest first: what the canvas shows. */
export function visibleStrokes(h: MaskHistory): Stroke[] {
  const out: Stroke[] = [];
  for (const op of h.ops) {
    if (op.kind === "clear") out.length = 0;
    else out.push(op.stroke);
  }
  return out;
}

/** The drawing calls a stroke needs; a 2D canvas context has them all. */
export type StrokeTarget = Pick<
  CanvasRenderingContext2D,
  | "beginPath"
  | "moveTo"
  | "lineTo"
  | "arc"
  | "fill"
  | "stroke"
  | "globalCompositeOperation"
  | "lineWidth"
  | "lineCap"
  | "lineJoin"
  | "fillStyle"
  | "strokeStyle"
>;

/**
 * Draws one stroke onto the painted layer: paint in `color`, erase by cutting the layer away. A single point (a tap)
 * is a dot, so tapping marks something too.
 */
export function drawStroke(ctx: StrokeTarget, stroke: Stroke, color: string): void {
  const [first, ...rest] = stroke.points;
  if (!first) return;
  ctx.globalCompositeOperation = stroke.mode === "erase" ? "destination-out" : "source-over";
  ctx.fillStyle = color;
  ctx.strokeStyle = color;
  ctx.lineWidth = stroke.size;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.beginPath();
  if (rest.length === 0) {
    ctx.arc(first.x, first.y, stroke.size / 2, 0, Math.PI * 2);
    ctx.fill();
  } else {
    ctx.moveTo(first.x, first.y);
    for (const p of rest) ctx.lineTo(p.x, p.y);
    ctx.stroke();
  }
  ctx.globalCompositeOperation = "source-over";
}

/**
 * The painted layer's pixels (RGBA, marks opaque, the rest transparent) as the contract's mask: white where painted,
 * black where not, grey on soft edges (partial change); always fully opaque, so the server never reads it as an
 * alpha mask.
 */
export function layerToMask(layer: Uint8ClampedArray): Uint8ClampedArray<ArrayBuffer> {
  const mask = new Uint8ClampedArray(layer.length);
  for (let i = 0; i < layer.length; i += 4) {
    const a = layer[i + 3];
    mask[i] = a;
    mask[i + 1] = a;
    mask[i + 2] = a;
    mask[i + 3] = 255;
  }
  return mask;
}

/** Share of the layer's pixels that carry any mark: the painter's "x % will change" line. */
export function markedShare(layer: Uint8ClampedArray): number {
  let marked = 0;
  for (let i = 3; i < layer.length; i += 4) if (layer[i] > 0) marked++;
  const pixels = layer.length / 4;
  return pixels === 0 ? 0 : marked / pixels;
}
