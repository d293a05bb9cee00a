// The mask painter: the image with a paint layer over it (mouse, pen or finger through pointer events, or the
// keyboard: arrows move the brush, Space puts it down and lifts it, Enter paints a dot), a brush with a size, an
// eraser, Undo and Clear. The parent reads the mask through `handleRef` when it sends the edit.
"use client";
import {
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
  useEffect,
  useImperativeHandle,
  useRef,
  useState,
} from "react";
import { ChoiceGroup } from "@/components/ui/choice-group";
import { RangeField } from "@/components/ui/range-field";
import { secondaryButton } from "@/components/ui/styles";
import {
  ARROW_STEPS,
  addStroke,
  type BrushMode,
  brushInCanvasPixels,
  canUndo,
  clearMask,
  drawStroke,
  emptyHistory,
  layerToMask,
  type MaskHistory,
  markedShare,
  maskSizeFor,
  type Stroke,
  toCanvasPoint,
  undo,
  visibleStrokes,
  walkPoint,
} from "@/lib/client/mask";

export type MaskHandle = {
  /** The mask as a PNG at the image's size (white = change), or null when nothing is painted. */
  toBlob: () => Promise<Blob | null>;
};

type Props = {
  imageUrl: string;
  width: number;
  height: number;
  alt: string;
  handleRef: RefObject<MaskHandle | null>;
  disabled?: boolean;
};

// The marks are drawn opaque and the layer is shown translucent, so overlapping strokes do not darken.
// Magenta: rare in photos, so the marks stand out on skin, sky and foliage alike.
const MARK_COLOR = "#e11d9c";
const TOOLS = [
  { value: "paint" as BrushMode, label: "Brush" },
  { value: "erase" as BrushMode, label: "Eraser" },
];

function layerPixels(canvas: HTMLCanvasElement): Uint8ClampedArray | null {
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  return ctx ? ctx.getImageData(0, 0, canvas.width, canvas.height).data : null;
}

export function MaskPainter({ imageUrl, width, height, alt, handleRef, disabled = false }: Props) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [history, setHistory] = useState<MaskHistory>(emptyHistory);
  const [tool, setTool] = useState<BrushMode>("paint");
  const [brush, setBrush] = useState(32);
  const [share, setShare] = useState(0);
  const [cursor, setCursor] = useState<{ x: number; y: number } | null>(null);
  const drawing = useRef<{ pointerId: number; stroke: Stroke } | null>(null);
  // The keyboard brush: where it is (canvas pixels) and, while it is down, the stroke it draws.
  const [keyPoint, setKeyPoint] = useState<{ x: number; y: number } | null>(null);
  const [keyStroke, setKeyStroke] = useState<Stroke | null>(null);
  const size = maskSizeFor({ width, height });

  // A new image starts a new mask.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the image URL is the reset trigger
  useEffect(() => setHistory(emptyHistory), [imageUrl]);

  // Undo and Clear redraw the layer from its history.
  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d", { willReadFrequently: true });
    if (!canvas || !ctx) return;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const s of visibleStrokes(history)) drawStroke(ctx, s, MARK_COLOR);
    const pixels = layerPixels(canvas);
    setShare(pixels ? markedShare(pixels) : 0);
  }, [history]);

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

  function onPointerEnd(e: PointerEvent<HTMLCanvasElement>) {
    const d = drawing.current;
    if (!d || d.pointerId !== e.pointerId) return;
    drawing.current = null;
    setHistory((h) => addStroke(h, d.stroke));
  }

  const percent = share === 0 ? 0 : Math.max(1, Math.round(share * 100));
  return (
    <fieldset
      className="space-y-3"
      onKeyDown={(e) => {
        if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") {
          e.preventDefault();
          setHistory(undo);
        }
      }}
    >
      <legend className="sr-only">Mask painter (Ctrl+Z undoes a stroke)</legend>
      <div className="bg-checker relative mx-auto w-fit max-w-full overflow-hidden rounded-xl">
        <img
          src={imageUrl}
          alt={alt}
          width={width}
          height={height}
          className="block h-auto max-h-[60vh] w-auto max-w-full select-none"
          draggable={false}
          data-testid="edit-source"
        />
        {/* biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: the canvas takes arrow keys itself, the ARIA "application" pattern */}
        <canvas
          ref={canvasRef}
          width={size.width}
          height={size.height}
          className={`absolute inset-0 size-full touch-none opacity-60 focus-visible:outline-3 focus-visible:-outline-offset-3 focus-visible:outline-safelight-500 ${disabled ? "cursor-not-allowed" : "cursor-crosshair"}`}
          aria-label="Mask: paint over the areas to change"
          aria-describedby="mask-status mask-keys"
          aria-roledescription="mask painter"
          role="application"
          tabIndex={disabled ? -1 : 0}
          onKeyDown={onCanvasKey}
          onFocus={() => setKeyPoint((p) => p ?? { x: size.width / 2, y: size.height / 2 })}
          onBlur={() => {
            if (keyStroke) setHistory((h) => addStroke(h, keyStroke));
            setKeyStroke(null);
            setKeyPoint(null);
          }}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerEnd}
          onPointerCancel={onPointerEnd}
          onPointerLeave={() => setCursor(null)}
          data-testid="mask-canvas"
        />
        {keyPoint && !disabled && (
          <span
            aria-hidden="true"
            data-testid="mask-key-brush"
            className={`pointer-events-none absolute rounded-full border-2 shadow-[0_0_0_1px_rgb(0_0_0/0.6)] ${keyStroke ? "border-safelight-400 bg-white/30" : "border-white border-dashed"}`}
            style={{
              width: brush,
              height: brush,
              left: `calc(${(keyPoint.x / size.width) * 100}% - ${brush / 2}px)`,
              top: `calc(${(keyPoint.y / size.height) * 100}% - ${brush / 2}px)`,
            }}
          />
        )}
        {cursor && !disabled && (
          <span
            aria-hidden="true"
            className="pointer-events-none absolute rounded-full border-2 border-white shadow-[0_0_0_1px_rgb(0_0_0/0.6)]"
            style={{ width: brush, height: brush, left: cursor.x - brush / 2, top: cursor.y - brush / 2 }}
          />
        )}
      </div>
      <p id="mask-status" className="text-sm text-stone-700 dark:text-stone-300" data-testid="mask-status">
        {share === 0
          ? "No mask painted: the whole image will change. Paint over a part to change only that."
          : `Painted: about ${percent} % of the image will change; the rest is kept.`}
      </p>
      <p id="mask-keys" className="text-xs text-stone-600 dark:text-stone-400">
        Keyboard: Tab to the image, then the arrow keys move the brush (Shift for longer steps), Space puts it down and
        lifts it, Enter paints a dot, Ctrl+Z undoes.
      </p>
      <div className="grid gap-3 sm:grid-cols-[auto_1fr] sm:items-end">
        <ChoiceGroup
          legend="Tool"
          name="mask-tool"
          options={TOOLS}
          value={tool}
          onChange={setTool}
          disabled={disabled}
        />
        <RangeField
          id="brush-size"
          label="Brush size"
          value={brush}
          onChange={setBrush}
          min={4}
          max={120}
          step={2}
          format={(v) => `${v} px`}
          disabled={disabled}
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={secondaryButton}
          onClick={() => setHistory(undo)}
          disabled={disabled || !canUndo(history)}
          aria-keyshortcuts="Control+Z"
          data-testid="mask-undo"
        >
          Undo
        </button>
        <button
          type="button"
          className={secondaryButton}
          onClick={() => setHistory(clearMask)}
          disabled={disabled || visibleStrokes(history).length === 0}
          data-testid="mask-clear"
        >
          Clear mask
        </button>
      </div>
    </fieldset>
  );
}
