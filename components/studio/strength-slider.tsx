// How far an edit may move from the image: 0 keeps it, 1 ignores it (masked-out areas are kept at any strength).
"use client";
import { fieldLabel } from "@/components/ui/styles";

export const DEFAULT_EDIT_STRENGTH = 0.6;

export function StrengthSlider({ value, onChange }: { value: number; onChange: (v: number) => void }) {
  return (
    <div>
      <div className="flex items-baseline justify-between">
        <label htmlFor="edit-strength" className={fieldLabel}>
          Strength
        </label>
        <output htmlFor="edit-strength" className="font-mono text-sm tabular-nums" data-testid="edit-strength-value">
          {value.toFixed(2)}
        </output>
      </div>
      <input
        id="edit-strength"
        type="range"
        min={0}
        max={1}
        step={0.05}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        aria-describedby="edit-strength-hint"
        className="mt-2 w-full accent-safelight-600 dark:accent-safelight-400"
      />
      <p id="edit-strength-hint" className="flex justify-between gap-2 text-xs text-stone-600 dark:text-stone-400">
        <span>0 · keep the image</span>
        <span>1 · change it fully</span>
      </p>
    </div>
  );
}
