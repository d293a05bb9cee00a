// Enhancement settings: the mode picker, the strength slider (0–1, its ends in the mode's own meaning), the prompt
// that steers creative, and the 2×/4× scale toggle.
"use client";
import { RangeField } from "@/components/ui/range-field";
import { fieldLabel, textInput } from "@/components/ui/styles";
import type { EnhanceModeName } from "@/lib/catalog/enhance-modes";
import { ENHANCE_SCALES } from "@/lib/schemas/enhance-rules";
import { type ModeOption, ModePicker } from "./mode-picker";

const choiceClass =
  "relative flex cursor-pointer flex-col items-center justify-center rounded-lg border border-stone-300 bg-white px-3 py-2 text-sm font-semibold has-checked:border-safelight-600 has-checked:bg-safelight-50 has-checked:text-safelight-700 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:bg-stone-950 dark:has-checked:border-safelight-400 dark:has-checked:bg-safelight-700/20 dark:has-checked:text-safelight-100 dark:has-focus-visible:outline-safelight-300";
const radioClass = "absolute inset-0 m-0 cursor-pointer appearance-none opacity-0";

/** The longest prompt /api/enhance takes, in characters. */
const MAX_PROMPT = 400;

export type EnhanceSettingsValue = {
  strength: number;
  scale: 2 | 4;
  model: EnhanceModeName;
  prompt: string;
};

type Props = {
  value: EnhanceSettingsValue;
  onChange: (patch: Partial<EnhanceSettingsValue>) => void;
  modes: ModeOption[];
};

export function EnhanceOptions({ value, onChange, modes }: Props) {
  const mode = modes.find((m) => m.name === value.model);
  return (
    <div className="space-y-5">
      <ModePicker modes={modes} value={value.model} onChange={(model) => onChange({ model })} />
      {mode?.generative && (
        <div>
          <label htmlFor="enhance-prompt" className={fieldLabel}>
            Prompt <span className="font-normal text-stone-600 dark:text-stone-400">(optional)</span>
          </label>
          <textarea
            id="enhance-prompt"
            rows={2}
            maxLength={MAX_PROMPT}
            value={value.prompt}
            onChange={(e) => onChange({ prompt: e.target.value })}
            placeholder="What the invented detail should look like, e.g. crisp autumn leaves"
            aria-describedby="enhance-prompt-hint"
            className={`${textInput} mt-1.5 w-full`}
            data-testid="enhance-prompt"
          />
          <p id="enhance-prompt-hint" className="mt-1 text-xs text-stone-600 dark:text-stone-400">
            Steers what the model invents; checked by the same filter as image prompts.
          </p>
        </div>
      )}
      <RangeField
        id="strength"
        label="Strength"
        value={value.strength}
        onChange={(strength) => onChange({ strength })}
        min={0}
        max={1}
        step={0.05}
        format={(v) => v.toFixed(2)}
        ends={mode?.strengthEnds ?? ["0", "1"]}
        valueTestId="strength-value"
      />
      <fieldset>
        <legend className={fieldLabel}>Upscale</legend>
        <div className="mt-1.5 grid auto-cols-fr grid-flow-col gap-2">
          {ENHANCE_SCALES.map((s) => (
            <label key={s} className={choiceClass}>
              <input
                type="radio"
                name="scale"
                value={s}
                checked={value.scale === s}
                onChange={() => onChange({ scale: s })}
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
