// How many images one request makes (1 to 4); each is one unit of the day's quota.
"use client";
import { ChoiceGroup } from "@/components/ui/choice-group";

export const COUNTS = [1, 2, 3, 4] as const;
export type Count = (typeof COUNTS)[number];

const OPTIONS = COUNTS.map((n) => ({ value: n, label: String(n) }));

export function CountPicker({ value, onChange }: { value: Count; onChange: (v: Count) => void }) {
  return (
    <ChoiceGroup
      legend="Images"
      name="n"
      options={OPTIONS}
      value={value}
      onChange={onChange}
      hint={
        value === 1
          ? "One image, one unit of your quota."
          : `${value} variants, each with its own seed: ${value} units.`
      }
    />
  );
}
