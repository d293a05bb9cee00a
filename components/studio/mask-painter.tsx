// The mask painter: the image with a paint layer over it (mouse, pen or finger through pointer events, or the
// keyboard: arrows move the brush, Space puts it down and lifts it, Enter paints a dot), a brush with a size, an
// eraser, Undo and Clear. The parent reads the mask through `handleRef` when it sends the edit.
"use client";
import { type RefObject, useRef, useState } from "react";
import { ChoiceGroup } from "@/components/ui/choice-group";
import { RangeField } from "@/components/ui/range-field";
import { secondaryButton } from "@/components/ui/styles";
import {
  type BrushMode,
  canUndo,
  clearMask,
  type MaskHistory,
  maskSizeFor,
  undo,
  visibleStrokes,
} from "@/lib/client/mask";
import { type MaskHandle, useKeyboardBrush, useMaskLayer, usePointerBrush } from "./use-mask-painter";

export type { MaskHandle };

type Props = {
  imageUrl: string;
  width: number;
  height: number;
  alt: string;
  handleRef: RefObject<MaskHandle | null>;
  disabled?: boolean;
};

const TOOLS = [
  { value: "paint" as BrushMode, label: "Brush" },
  { value: "erase" as BrushMode, label: "Eraser" },
];

/** The brush rings over the image: the keyboard brush (dashed while up) and the pointer's cursor. */
function BrushMarkers(props: {
  keyPoint: { x: number; y: number } | null;
  keyStroke: unknown;
  cursor: { x: number; y: number } | null;
  brush: number;
  size: { width: number; height: number };
  disabled: boolean;
}) {
  const { keyPoint, keyStroke, cursor, brush, size, disabled } = props;
  return (
    <>
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
    </>
  );
}

/** Tool, brush size, Undo and Clear. */
function MaskControls(props: {
  tool: BrushMode;
  setTool: (t: BrushMode) => void;
  brush: number;
  setBrush: (n: number) => void;
  history: MaskHistory;
  setHistory: (f: (h: MaskHistory) => MaskHistory) => void;
  disabled: boolean;
}) {
  const { tool, setTool, brush, setBrush, history, setHistory, disabled } = props;
  return (
    <>
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
    </>
  );
}

export function MaskPainter({ imageUrl, width, height, alt, handleRef, disabled = false }: Props) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [tool, setTool] = useState<BrushMode>("paint");
  const [brush, setBrush] = useState(32);
  const size = maskSizeFor({ width, height });
  const { history, setHistory, share } = useMaskLayer(canvasRef, imageUrl, handleRef);
  const pointer = usePointerBrush({ disabled, tool, brush, size, setHistory });
  const keys = useKeyboardBrush({ disabled, tool, brush, size, setHistory });
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
          onKeyDown={keys.onCanvasKey}
          onFocus={keys.onFocus}
          onBlur={keys.onBlur}
          onPointerDown={pointer.onPointerDown}
          onPointerMove={pointer.onPointerMove}
          onPointerUp={pointer.onPointerEnd}
          onPointerCancel={pointer.onPointerEnd}
          onPointerLeave={() => pointer.setCursor(null)}
          data-testid="mask-canvas"
        />
        <BrushMarkers
          keyPoint={keys.keyPoint}
          keyStroke={keys.keyStroke}
          cursor={pointer.cursor}
          brush={brush}
          size={size}
          disabled={disabled}
        />
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
      <MaskControls
        tool={tool}
        setTool={setTool}
        brush={brush}
        setBrush={setBrush}
        history={history}
        setHistory={setHistory}
        disabled={disabled}
      />
    </fieldset>
  );
}
