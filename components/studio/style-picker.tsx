// The style picker: a visual chip for every preset the service publishes.
"use client";
import { fieldLabel } from "@/components/ui/styles";
import { swatchFor } from "./style-swatches";

export type StyleOption = { name: string; description: string };

type Props = { styles: StyleOption[]; value: string; onChange: (v: string) => void };

export function StylePicker({ styles, value, onChange }: Props) {
  const current = styles.find((s) => s.name === value);
  return (
    <fieldset>
      <legend className={fieldLabel}>Style</legend>
      <div className="mt-1.5 grid grid-cols-[repeat(auto-fill,minmax(6.75rem,1fr))] gap-2">
        {styles.map((s) => (
          <label
            key={s.name}
            title={s.description}
            className="group relative flex cursor-pointer flex-col overflow-hidden rounded-lg border border-stone-300 bg-white text-xs hover:border-stone-400 has-checked:border-safelight-600 has-checked:ring-2 has-checked:ring-safelight-600/40 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:bg-stone-950 dark:has-checked:border-safelight-400 dark:has-focus-visible:outline-safelight-300"
          >
            <input
              type="radio"
              name="style"
              value={s.name}
              checked={value === s.name}
              onChange={() => onChange(s.name)}
              className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0"
            />
            <span className={`block h-10 w-full ${swatchFor(s.name)}`} aria-hidden="true" />
            <span className="px-2 py-1.5 leading-tight font-medium">{s.name}</span>
          </label>
        ))}
      </div>
      <p className="mt-1.5 min-h-4 text-xs text-stone-600 dark:text-stone-400" data-testid="style-description">
        {current?.description}
      </p>
    </fieldset>
  );
}
