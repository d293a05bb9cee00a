// The mask painter's pure logic: pointer coordinates on a CSS-scaled canvas, undo and clear, and the mask's pixels.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addStroke,
  brushInCanvasPixels,
  canUndo,
  clearMask,
  drawStroke,
  emptyHistory,
  layerToMask,
  markedShare,
  maskSizeFor,
  type Stroke,
  type StrokeTarget,
  toCanvasPoint,
  undo,
  visibleStrokes,
} from "../../lib/client/mask";

const stroke = (mode: Stroke["mode"], x: number): Stroke => ({ mode, size: 10, points: [{ x, y: 1 }] });

describe("toCanvasPoint", () => {
  it("scales a point on a canvas shown smaller than its pixels", () => {
    // A 1024×768 canvas shown 320×240 at (10, 100) on the page.
    const box = { left: 10, top: 100, width: 320, height: 240 };
    assert.deepEqual(toCanvasPoint({ x: 10, y: 100 }, box, { width: 1024, height: 768 }), { x: 0, y: 0 });
    assert.deepEqual(toCanvasPoint({ x: 170, y: 220 }, box, { width: 1024, height: 768 }), { x: 512, y: 384 });
    assert.deepEqual(toCanvasPoint({ x: 330, y: 340 }, box, { width: 1024, height: 768 }), { x: 1024, y: 768 });
  });

  it("scales each axis on its own and clamps points dragged off the canvas", () => {
    const box = { left: 0, top: 0, width: 200, height: 50 };
    assert.deepEqual(toCanvasPoint({ x: 100, y: 25 }, box, { width: 100, height: 100 }), { x: 50, y: 50 });
    assert.deepEqual(toCanvasPoint({ x: -40, y: 500 }, box, { width: 100, height: 100 }), { x: 0, y: 100 });
  });

  it("sizes the brush in canvas pixels from the size seen on screen", () => {
    const box = { left: 0, top: 0, width: 375, height: 250 };
    assert.equal(brushInCanvasPixels(30, box, { width: 1500, height: 1000 }), 120);
    assert.equal(brushInCanvasPixels(30, { ...box, width: 0 }, { width: 1500, height: 1000 }), 30);
  });
});

describe("maskSizeFor", () => {
  it("keeps the image's size, and scales the biggest images down keeping their shape", () => {
    assert.deepEqual(maskSizeFor({ width: 640, height: 480 }), { width: 640, height: 480 });
    const big = maskSizeFor({ width: 6000, height: 4000 });
    assert.ok(big.width * big.height <= 16_000_000);
    assert.ok(Math.abs(big.width / big.height - 1.5) < 0.001);
  });
});

describe("mask history", () => {
  it("undoes strokes one at a time", () => {
    let h = addStroke(emptyHistory, stroke("paint", 1));
    h = addStroke(h, stroke("erase", 2));
    assert.deepEqual(
      visibleStrokes(h).map((s) => s.mode),
      ["paint", "erase"],
    );
    h = undo(h);
    assert.deepEqual(
      visibleStrokes(h).map((s) => s.points[0].x),
      [1],
    );
    h = undo(h);
    assert.equal(canUndo(h), false);
    assert.equal(undo(h), h);
  });

  it("clears as an undoable step, and ignores a clear of nothing and an empty stroke", () => {
    let h = addStroke(emptyHistory, stroke("paint", 1));
    h = clearMask(h);
    assert.deepEqual(visibleStrokes(h), []);
    assert.equal(clearMask(h), h, "clearing an empty canvas is not a step");
    h = addStroke(h, stroke("paint", 3));
    assert.deepEqual(
      visibleStrokes(h).map((s) => s.points[0].x),
      [3],
    );
    h = undo(undo(h));
    assert.deepEqual(
      visibleStrokes(h).map((s) => s.points[0].x),
      [1],
      "undoing the clear brings the marks back",
    );
    assert.equal(addStroke(h, { mode: "paint", size: 4, points: [] }), h);
  });
});

describe("drawStroke", () => {
  function recorder() {
    const calls: string[] = [];
    const ctx = {
      globalCompositeOperation: "source-over",
      lineWidth: 1,
      lineCap: "butt",
      lineJoin: "miter",
      fillStyle: "",
      strokeStyle: "",
      beginPath: () => calls.push("beginPath"),
      moveTo: (x: number, y: number) => calls.push(`moveTo ${x},${y}`),
      lineTo: (x: number, y: number) => calls.push(`lineTo ${x},${y}`),
      arc: (x: number, y: number, r: number) => calls.push(`arc ${x},${y} r${r}`),
      fill: () => calls.push(`fill ${ctx.globalCompositeOperation}`),
      stroke: () => calls.push(`stroke ${ctx.globalCompositeOperation} w${ctx.lineWidth} ${ctx.lineCap}`),
    };
    return { ctx: ctx as unknown as StrokeTarget, calls, state: ctx };
  }

  it("draws a tap as a dot and a drag as a round-capped line", () => {
    const r = recorder();
    drawStroke(r.ctx, { mode: "paint", size: 8, points: [{ x: 5, y: 6 }] }, "#fff");
    drawStroke(
      r.ctx,
      {
        mode: "paint",
        size: 12,
        points: [
          { x: 1, y: 1 },
          { x: 9, y: 9 },
        ],
      },
      "#fff",
    );
    assert.deepEqual(r.calls, [
      "beginPath",
      "arc 5,6 r4",
      "fill source-over",
      "beginPath",
      "moveTo 1,1",
      "lineTo 9,9",
      "stroke source-over w12 round",
    ]);
  });

  it("erases by cutting the painted layer away, then goes back to painting", () => {
    const r = recorder();
    drawStroke(r.ctx, { mode: "erase", size: 8, points: [{ x: 5, y: 6 }] }, "#fff");
    assert.deepEqual(r.calls.slice(-1), ["fill destination-out"]);
    assert.equal(r.state.globalCompositeOperation, "source-over");
  });
});

describe("layerToMask", () => {
  it("turns painted alpha into white on black, opaque, with soft edges grey", () => {
    // Four pixels: untouched, painted, half-covered edge, painted in another colour.
    const layer = new Uint8ClampedArray([0, 0, 0, 0, 255, 80, 0, 255, 255, 80, 0, 128, 10, 20, 30, 255]);
    assert.deepEqual(
      [...layerToMask(layer)],
      [0, 0, 0, 255, 255, 255, 255, 255, 128, 128, 128, 255, 255, 255, 255, 255],
    );
    assert.equal(markedShare(layer), 0.75);
    assert.equal(markedShare(new Uint8ClampedArray(16)), 0, "nothing painted: no mask to send");
  });
});
