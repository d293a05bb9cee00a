// The ratio picker, drawing each of the three shapes so the choice is visual.
"use client";
import { fieldLabel } from "@/components/ui/styles";

const SHAPES: Record<string, { box: string; label: string }> = {
  "1:1": { box: "h-7 w-7", label: "Square" },
  "16:9": { box: "h-[1.125rem] w-8", label: "Landscape" },
  "9:16": { box: "h-8 w-[1.125rem]", label: "Portrait" },
};

type Props = { ratios: string[]; value: string; onChange: (v: string) => void };

export function RatioPicker({ ratios, value, onChange }: Props) {
  return (
    <fieldset>
      <legend className={fieldLabel}>Aspect ratio</legend>
      <div className="mt-1.5 grid grid-cols-3 gap-2">
        {ratios.map((r) => (
          <label
            key={r}
            className="relative flex cursor-pointer flex-col items-center gap-1.5 rounded-lg border border-stone-300 bg-white px-2 py-2.5 text-xs hover:border-stone-400 has-checked:border-safelight-600 has-checked:ring-2 has-checked:ring-safelight-600/40 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:bg-stone-950 dark:has-checked:border-safelight-400 dark:has-focus-visible:outline-safelight-300"
          >
            <input
              type="radio"
              name="ratio"
              value={r}
              checked={value === r}
              onChange={() => onChange(r)}
              className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0"
            />
            <span className="flex h-8 items-center" aria-hidden="true">
              <span className={`block rounded-[3px] border-2 border-current ${SHAPES[r]?.box ?? "h-7 w-7"}`} />
            </span>
            <span className="font-semibold">{r}</span>
            <span className="text-stone-600 dark:text-stone-400">{SHAPES[r]?.label ?? ""}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
