// Enhancement settings: the strength slider (0–1), one toggle per enhance mode and the 2×/4× scale toggle.
"use client";
import { RangeField } from "@/components/ui/range-field";
import { fieldLabel } from "@/components/ui/styles";
import { describeModeHint, type EnhanceMode, IN_PROCESS_MODES } from "@/lib/catalog/enhance-modes";
import { ENHANCE_SCALES } from "@/lib/schemas/enhance-rules";

const choiceClass =
  "relative flex cursor-pointer flex-col items-center justify-center rounded-lg border border-stone-300 bg-white px-3 py-2 text-sm font-semibold has-checked:border-safelight-600 has-checked:bg-safelight-50 has-checked:text-safelight-700 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:bg-stone-950 dark:has-checked:border-safelight-400 dark:has-checked:bg-safelight-700/20 dark:has-checked:text-safelight-100 dark:has-focus-visible:outline-safelight-300";
const radioClass = "absolute inset-0 m-0 cursor-pointer appearance-none opacity-0";

type Props = {
  strength: number;
  onStrength: (v: number) => void;
  scale: 2 | 4;
  onScale: (v: 2 | 4) => void;
  model: EnhanceMode;
  onModel: (v: EnhanceMode) => void;
};

export function EnhanceOptions({ strength, onStrength, scale, onScale, model, onModel }: Props) {
  return (
    <div className="space-y-5">
      <RangeField
        id="strength"
        label="Strength"
        value={strength}
        onChange={onStrength}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        ends={["0 · faithful resize", "1 · strongest"]}
        valueTestId="strength-value"
      />
      <fieldset>
        <legend className={fieldLabel}>Model</legend>
        <div className="mt-1.5 grid auto-cols-fr grid-flow-col gap-2">
          {IN_PROCESS_MODES.map((m) => (
            <label key={m.name} className={choiceClass}>
              <input
                type="radio"
                name="model"
                value={m.name}
                checked={model === m.name}
                onChange={() => onModel(m.name)}
                className={radioClass}
                data-testid={`model-${m.name}`}
              />
              {m.label}
              <span className="text-xs font-normal text-stone-600 dark:text-stone-400">{describeModeHint(m)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className={fieldLabel}>Upscale</legend>
        <div className="mt-1.5 grid auto-cols-fr grid-flow-col gap-2">
          {ENHANCE_SCALES.map((s) => (
            <label key={s} className={choiceClass}>
              <input
                type="radio"
                name="scale"
                value={s}
                checked={scale === s}
                onChange={() => onScale(s)}
                className={radioClass}
              />
              {s}×
            </label>
          ))}
        </div>
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">The long side is capped at 4,096 px.</p>
      </fieldset>
    </div>
  );
}
