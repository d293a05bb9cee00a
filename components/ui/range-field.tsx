// A labelled slider with its value shown beside the label and, optionally, what each end means.
"use client";
import { fieldLabel } from "@/components/ui/styles";

type Props = {
  id: string;
  label: string;
  value: number;
  onChange: (v: number) => void;
  min: number;
  max: number;
  step: number;
  /** How the value reads beside the label. */
  format: (v: number) => string;
  /** What the two ends mean, e.g. ["0 · keep the image", "1 · change it fully"]. */
  ends?: readonly [string, string];
  disabled?: boolean;
  /** data-testid of the shown value. */
  valueTestId?: string;
};

export function RangeField({ id, label, value, onChange, min, max, step, format, ends, disabled, valueTestId }: Props) {
  const hint = ends ? `${id}-hint` : undefined;
  return (
    <div>
      <div className="flex items-baseline justify-between">
        <label htmlFor={id} className={fieldLabel}>
          {label}
        </label>
        <output htmlFor={id} className="font-mono text-sm tabular-nums" data-testid={valueTestId}>
          {format(value)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        disabled={disabled}
        aria-describedby={hint}
        className="mt-2 w-full accent-safelight-600 dark:accent-safelight-400"
      />
      {ends && (
        <p id={hint} className="flex justify-between gap-2 text-xs text-stone-600 dark:text-stone-400">
          <span>{ends[0]}</span>
          <span>{ends[1]}</span>
        </p>
      )}
    </div>
  );
}
