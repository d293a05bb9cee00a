// The model picker: one honest line per model, and a plain "not AI" badge while it runs on the preview renderer.
"use client";
import { PreviewBadge } from "@/components/ui/preview-badge";
import { fieldLabel } from "@/components/ui/styles";

export type ModelOption = {
  name: string;
  family: string;
  description: string;
  engine: string | null;
  ai: boolean | null;
  /** What the model's configured routes take (text, image, mask); unknown until /api/status answers. */
  inputs?: string[];
};

type Props = {
  models: ModelOption[];
  value: string;
  onChange: (v: string) => void;
  /** Edit mode: models known not to take this input are shown but cannot be picked. */
  needs?: string | null;
};

export function ModelPicker({ models, value, onChange, needs = null }: Props) {
  return (
    <fieldset>
      <legend className={fieldLabel}>Model</legend>
      <div className="mt-1.5 grid gap-2 sm:grid-cols-2">
        {models.map((m) => {
          const unable = needs !== null && m.inputs !== undefined && !m.inputs.includes(needs);
          return (
            <label
              key={m.name}
              className="relative flex cursor-pointer flex-col gap-1 rounded-xl border border-stone-300 bg-white p-3 text-sm hover:border-stone-400 has-checked:border-safelight-600 has-checked:ring-2 has-checked:ring-safelight-600/30 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 has-disabled:cursor-not-allowed has-disabled:opacity-60 dark:border-stone-700 dark:bg-stone-950 dark:hover:border-stone-500 dark:has-checked:border-safelight-400 dark:has-focus-visible:outline-safelight-300"
            >
              <input
                type="radio"
                name="model"
                value={m.name}
                checked={value === m.name}
                onChange={() => onChange(m.name)}
                disabled={unable}
                aria-describedby={unable ? `model-${m.name}-unable` : undefined}
                className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0 disabled:cursor-not-allowed"
              />
              <span className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1">
                <span className="font-mono font-semibold">{m.name}</span>
                {m.engine && m.ai === false && <PreviewBadge engine={m.engine} />}
              </span>
              <span className="text-xs font-medium text-stone-700 dark:text-stone-300">{m.family}</span>
              <span className="text-xs text-stone-600 dark:text-stone-400">{m.description}</span>
              {unable && (
                <span id={`model-${m.name}-unable`} className="text-xs font-medium text-stone-700 dark:text-stone-300">
                  Can&apos;t edit images on this server
                </span>
              )}
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
