// The prompt box with a live code-point counter, checked by the same rule the server uses.
"use client";
import { fieldLabel, textInput } from "@/components/ui/styles";
import { countCodePoints, PROMPT_MAX_CODE_POINTS } from "@/lib/schemas/prompt-rules";

type Props = {
  value: string;
  onChange: (v: string) => void;
  /** Set after a submit attempt fails the client check; shown and announced. */
  error: string | null;
  inputRef: React.Ref<HTMLTextAreaElement>;
  onSubmitShortcut: () => void;
  /** Edit mode asks for the change rather than a whole picture. */
  placeholder?: string;
};

export function promptProblem(value: string): string | null {
  const n = countCodePoints(value);
  if (value.trim() === "") return "Describe the image you want first.";
  if (n > PROMPT_MAX_CODE_POINTS)
    return `Your prompt is ${n - PROMPT_MAX_CODE_POINTS} characters over the ${PROMPT_MAX_CODE_POINTS}-character limit. Shorten it to generate.`;
  return null;
}

const DEFAULT_PLACEHOLDER = "A lighthouse on a cliff at sunset, waves crashing below";

export function PromptField({ value, onChange, error, inputRef, onSubmitShortcut, placeholder }: Props) {
  const n = countCodePoints(value);
  const over = n > PROMPT_MAX_CODE_POINTS;
  return (
    <div>
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor="prompt" className={fieldLabel}>
          Prompt
        </label>
        <span
          id="prompt-counter"
          data-testid="prompt-counter"
          className={`text-xs tabular-nums ${over ? "font-semibold text-red-700 dark:text-red-300" : "text-stone-600 dark:text-stone-400"}`}
        >
          {n} / {PROMPT_MAX_CODE_POINTS}
        </span>
      </div>
      <textarea
        id="prompt"
        ref={inputRef}
        name="prompt"
        rows={4}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
            e.preventDefault();
            onSubmitShortcut();
          }
        }}
        aria-invalid={over || Boolean(error)}
        aria-describedby="prompt-counter prompt-hint prompt-error"
        placeholder={placeholder ?? DEFAULT_PLACEHOLDER}
        className={`${textInput} mt-1.5 resize-y`}
      />
      <p id="prompt-hint" className="mt-1 text-xs text-stone-600 dark:text-stone-400">
        Up to {PROMPT_MAX_CODE_POINTS} characters. Ctrl+Enter generates.
      </p>
      <p
        id="prompt-error"
        aria-live="polite"
        className="mt-1 text-sm font-medium text-red-700 empty:hidden dark:text-red-300"
        data-testid="prompt-error"
      >
        {error ?? (over ? promptProblem(value) : "")}
      </p>
    </div>
  );
}
