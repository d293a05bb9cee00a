// The mask painter's layer and brushes: the stroke history drawn on the canvas (and read as a mask), the pointer
// brush (mouse, pen or finger) and the keyboard brush.
"use client";
import {
  type Dispatch,
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
  type SetStateAction,
  useEffect,
  useImperativeHandle,
  useRef,
  useState,
} from "react";
import {
  ARROW_STEPS,
  addStroke,
  type BrushMode,
  brushInCanvasPixels,
  drawStroke,
  emptyHistory,
  layerToMask,
  type MaskHistory,
  markedShare,
  type maskSizeFor,
  type Stroke,
  toCanvasPoint,
  visibleStrokes,
  walkPoint,
} from "@/lib/client/mask";

export type MaskHandle = {
  /** The mask as a PNG at the image's size (white = change), or null when nothing is painted. */
  toBlob: () => Promise<Blob | null>;
};

// The marks are drawn opaque and the layer is shown translucent, so overlapping strokes do not darken.
// Magenta: rare in photos, so the marks stand out on skin, sky and foliage alike.
const MARK_COLOR = "#e11d9c";

function layerPixels(canvas: HTMLCanvasElement): Uint8ClampedArray | null {
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  return ctx ? ctx.getImageData(0, 0, canvas.width, canvas.height).data : null;
}

/** The layer: its stroke history (reset by a new image, redrawn on Undo and Clear), the share painted, the mask. */
export function useMaskLayer(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  imageUrl: string,
  handleRef: RefObject<MaskHandle | null>,
) {
  const [history, setHistory] = useState<MaskHistory>(emptyHistory);
  const [share, setShare] = useState(0);

  // A new image starts a new mask.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the image URL is the reset trigger
  useEffect(() => setHistory(emptyHistory), [imageUrl]);

  // Undo and Clear redraw the layer from its history.
  // biome-ignore lint/correctness/useExhaustiveDependencies: canvasRef is the caller's ref object, read when the effect runs
  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d", { willReadFrequently: true });
    if (!canvas || !ctx) return;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const s of visibleStrokes(history)) drawStroke(ctx, s, MARK_COLOR);
    const pixels = layerPixels(canvas);
    setShare(pixels ? markedShare(pixels) : 0);
  }, [history]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: canvasRef is the caller's ref object, read when the handle is called
  useImperativeHandle(
    handleRef,
    () => ({
      toBlob: async () => {
        const canvas = canvasRef.current;
        const pixels = canvas && layerPixels(canvas);
        if (!canvas || !pixels || markedShare(pixels) === 0) return null;
        const out = document.createElement("canvas");
        out.width = canvas.width;
        out.height = canvas.height;
        const ctx = out.getContext("2d");
        if (!ctx) return null;
        ctx.putImageData(new ImageData(layerToMask(pixels), canvas.width, canvas.height), 0, 0);
        return new Promise<Blob | null>((resolve) => out.toBlob(resolve, "image/png"));
      },
    }),
    [],
  );
  return { history, setHistory, share };
}

/** What both brushes draw with. */
export type Brush = {
  disabled: boolean;
  tool: BrushMode;
  brush: number;
  size: ReturnType<typeof maskSizeFor>;
  setHistory: Dispatch<SetStateAction<MaskHistory>>;
};

/** The pointer brush: a stroke per pointer press, drawn as it moves, kept when it ends; and the cursor ring. */
export function usePointerBrush({ disabled, tool, brush, size, setHistory }: Brush) {
  const [cursor, setCursor] = useState<{ x: number; y: number } | null>(null);
  const drawing = useRef<{ pointerId: number; stroke: Stroke } | null>(null);

  function pointOf(e: PointerEvent<HTMLCanvasElement>) {
    const box = e.currentTarget.getBoundingClientRect();
    return toCanvasPoint({ x: e.clientX, y: e.clientY }, box, size);
  }

  function onPointerDown(e: PointerEvent<HTMLCanvasElement>) {
    if (disabled || drawing.current || (e.pointerType === "mouse" && e.button !== 0)) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    const box = e.currentTarget.getBoundingClientRect();
    const stroke: Stroke = { mode: tool, size: brushInCanvasPixels(brush, box, size), points: [pointOf(e)] };
    drawing.current = { pointerId: e.pointerId, stroke };
    const ctx = e.currentTarget.getContext("2d", { willReadFrequently: true });
    if (ctx) drawStroke(ctx, stroke, MARK_COLOR);
  }

  function onPointerMove(e: PointerEvent<HTMLCanvasElement>) {
    const box = e.currentTarget.getBoundingClientRect();
    setCursor(e.pointerType === "touch" ? null : { x: e.clientX - box.left, y: e.clientY - box.top });
    const d = drawing.current;
    if (!d || d.pointerId !== e.pointerId) return;
    const last = d.stroke.points[d.stroke.points.length - 1];
    const next = pointOf(e);
    d.stroke.points.push(next);
    const ctx = e.currentTarget.getContext("2d", { willReadFrequently: true });
    if (ctx) drawStroke(ctx, { ...d.stroke, points: [last, next] }, MARK_COLOR);
  }

  function onPointerEnd(e: PointerEvent<HTMLCanvasElement>) {
    const d = drawing.current;
    if (!d || d.pointerId !== e.pointerId) return;
    drawing.current = null;
    setHistory((h) => addStroke(h, d.stroke));
  }
  return { cursor, setCursor, onPointerDown, onPointerMove, onPointerEnd };
}

/** The keyboard brush: arrows move it (Shift for longer steps), Space puts it down and lifts it, Enter paints a dot. */
export function useKeyboardBrush({ disabled, tool, brush, size, setHistory }: Brush) {
  // The keyboard brush: where it is (canvas pixels) and, while it is down, the stroke it draws.
  const [keyPoint, setKeyPoint] = useState<{ x: number; y: number } | null>(null);
  const [keyStroke, setKeyStroke] = useState<Stroke | null>(null);

  function onCanvasKey(e: KeyboardEvent<HTMLCanvasElement>) {
    if (disabled) return;
    const canvas = e.currentTarget;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    const here = keyPoint ?? { x: size.width / 2, y: size.height / 2 };
    const step = ARROW_STEPS[e.key];
    if (step) {
      e.preventDefault();
      const box = canvas.getBoundingClientRect();
      const stride = brushInCanvasPixels(brush, box, size) / 2;
      const next = walkPoint(here, step, e.shiftKey ? stride * 4 : stride, size);
      setKeyPoint(next);
      if (keyStroke && ctx) {
        keyStroke.points.push(next);
        drawStroke(ctx, { ...keyStroke, points: [here, next] }, MARK_COLOR);
      }
      return;
    }
    if (e.key === " " || e.key === "Enter" || e.key === "Escape") {
      e.preventDefault();
      if (keyStroke) {
        setHistory((h) => addStroke(h, keyStroke));
        setKeyStroke(null);
        return;
      }
      if (e.key === "Escape") return;
      const box = canvas.getBoundingClientRect();
      const stroke: Stroke = { mode: tool, size: brushInCanvasPixels(brush, box, size), points: [here] };
      setKeyPoint(here);
      if (ctx) drawStroke(ctx, stroke, MARK_COLOR);
      // Enter paints a dot; Space puts the brush down until the next Space.
      if (e.key === "Enter") setHistory((h) => addStroke(h, stroke));
      else setKeyStroke(stroke);
    }
  }

  const onFocus = () => setKeyPoint((p) => p ?? { x: size.width / 2, y: size.height / 2 });
  const onBlur = () => {
    if (keyStroke) setHistory((h) => addStroke(h, keyStroke));
    setKeyStroke(null);
    setKeyPoint(null);
  };
  return { keyPoint, keyStroke, onCanvasKey, onFocus, onBlur };
}
