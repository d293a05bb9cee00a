// An optional seed: empty picks a new one each time; the same seed, prompt and settings give the same image on the
// engines that take one. "Reuse settings" fills it from a history item.
"use client";
import { fieldLabel, textInput } from "@/components/ui/styles";

const MAX_SEED = 4_294_967_295;

type Props = { value: string; onChange: (v: string) => void; error: string | null };

/** The seed to send, undefined for none, or a message when the text is not one. */
export function parseSeed(value: string): { seed?: number; problem?: string } {
  const text = value.trim();
  if (text === "") return {};
  if (!/^\d{1,10}$/.test(text) || Number(text) > MAX_SEED) {
    return { problem: `A seed is a whole number from 0 to ${MAX_SEED}, or leave it empty.` };
  }
  return { seed: Number(text) };
}

export function SeedField({ value, onChange, error }: Props) {
  return (
    <div>
      <label htmlFor="seed" className={fieldLabel}>
        Seed <span className="font-normal text-stone-600 dark:text-stone-400">(optional)</span>
      </label>
      <input
        id="seed"
        name="seed"
        inputMode="numeric"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={Boolean(error)}
        aria-describedby="seed-hint seed-error"
        placeholder="Random"
        className={`${textInput} mt-1.5 max-w-48 font-mono`}
        data-testid="seed"
      />
      <p id="seed-hint" className="mt-1 text-xs text-stone-600 dark:text-stone-400">
        The same seed and settings repeat an image on models that take one.
      </p>
      <p
        id="seed-error"
        aria-live="polite"
        className="mt-1 text-sm font-medium text-red-700 empty:hidden dark:text-red-300"
      >
        {error ?? ""}
      </p>
    </div>
  );
}
