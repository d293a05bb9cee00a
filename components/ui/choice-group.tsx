// A row of radio chips for a small fixed set of choices (format, count, tool): one tab stop, arrows move, focus ring
// on the chip; used wherever a setting has a handful of values.
"use client";
import type { ReactNode } from "react";
import { fieldLabel } from "./styles";

const chip =
  "relative flex min-h-10 cursor-pointer items-center justify-center rounded-lg border border-stone-300 bg-white px-2 py-1.5 text-sm font-semibold hover:border-stone-400 has-checked:border-safelight-600 has-checked:bg-safelight-50 has-checked:text-safelight-700 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 has-disabled:cursor-not-allowed has-disabled:opacity-60 dark:border-stone-700 dark:bg-stone-950 dark:hover:border-stone-500 dark:has-checked:border-safelight-400 dark:has-checked:bg-safelight-700/20 dark:has-checked:text-safelight-100 dark:has-focus-visible:outline-safelight-300";

type Props<T extends string | number> = {
  legend: ReactNode;
  /** The radios' name; also the prefix of their test ids. */
  name: string;
  options: readonly { value: T; label: ReactNode; title?: string }[];
  value: T;
  onChange: (v: T) => void;
  hint?: ReactNode;
  disabled?: boolean;
};

export function ChoiceGroup<T extends string | number>(props: Props<T>) {
  const { legend, name, options, value, onChange, hint, disabled } = props;
  const hintId = hint ? `${name}-hint` : undefined;
  return (
    <fieldset aria-describedby={hintId} disabled={disabled}>
      <legend className={fieldLabel}>{legend}</legend>
      <div className="mt-1.5 grid auto-cols-fr grid-flow-col gap-2">
        {options.map((o) => (
          <label key={String(o.value)} className={chip} title={o.title}>
            <input
              type="radio"
              name={name}
              value={String(o.value)}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0"
              data-testid={`${name}-${o.value}`}
            />
            {o.label}
          </label>
        ))}
      </div>
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-stone-600 dark:text-stone-400">
          {hint}
        </p>
      )}
    </fieldset>
  );
}
