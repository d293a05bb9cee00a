// How far an edit may move from the image: 0 keeps it, 1 ignores it (masked-out areas are kept at any strength).
"use client";
import { RangeField } from "@/components/ui/range-field";

export const DEFAULT_EDIT_STRENGTH = 0.6;

export function StrengthSlider({ value, onChange }: { value: number; onChange: (v: number) => void }) {
  return (
    <RangeField
      id="edit-strength"
      label="Strength"
      value={value}
      onChange={onChange}
      min={0}
      max={1}
      step={0.05}
      format={(v) => v.toFixed(2)}
      ends={["0 · keep the image", "1 · change it fully"]}
      valueTestId="edit-strength-value"
    />
  );
}
