// The enhance mode picker: every mode of the table with the engine that serves it here (from /api/status
// enhance_modes), greyed out with the reason when no route serves it, and what the chosen mode does.
"use client";
import { GenerativeBadge } from "@/components/ui/generative-badge";
import { PreviewBadge } from "@/components/ui/preview-badge";
import { fieldLabel } from "@/components/ui/styles";
import { ENHANCE_MODES, type EnhanceModeName } from "@/lib/catalog/enhance-modes";
import type { StatusResponse } from "@/lib/schemas/status";

export type ModeOption = {
  name: EnhanceModeName;
  label: string;
  summary: string;
  strengthEnds: readonly [string, string];
  generative: boolean;
  /** Null until /api/status answers. */
  available: boolean | null;
  engines: string[];
  ai: boolean;
  licenceNotes?: string;
};

/** The table's modes, with what this server says about each once /api/status has answered. */
export function modeOptions(status: StatusResponse | null): ModeOption[] {
  return ENHANCE_MODES.map((row) => {
    const here = status?.enhance_modes.find((m) => m.name === row.name);
    return {
      name: row.name,
      label: row.label,
      summary: row.summary,
      strengthEnds: row.strengthEnds,
      generative: row.generative,
      available: here ? here.available : null,
      engines: here?.engines ?? [],
      ai: here?.ai ?? true,
      licenceNotes: here?.licence_notes,
    };
  });
}

const cardClass =
  "relative flex cursor-pointer flex-col gap-0.5 rounded-lg border border-stone-300 bg-white px-3 py-2 text-sm has-checked:border-safelight-600 has-checked:bg-safelight-50 has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-safelight-600 has-disabled:cursor-not-allowed has-disabled:border-dashed has-disabled:bg-stone-100 dark:border-stone-700 dark:bg-stone-950 dark:has-checked:border-safelight-400 dark:has-checked:bg-safelight-700/20 dark:has-focus-visible:outline-safelight-300 dark:has-disabled:bg-stone-900";

type Props = { modes: ModeOption[]; value: EnhanceModeName; onChange: (v: EnhanceModeName) => void };

export function ModePicker({ modes, value, onChange }: Props) {
  const chosen = modes.find((m) => m.name === value);
  return (
    <fieldset>
      <legend className={fieldLabel}>Mode</legend>
      <div className="mt-1.5 grid grid-cols-2 gap-2">
        {modes.map((m) => (
          <label key={m.name} className={cardClass} data-testid={`mode-card-${m.name}`}>
            <input
              type="radio"
              name="model"
              value={m.name}
              checked={value === m.name}
              disabled={m.available === false}
              onChange={() => onChange(m.name)}
              aria-describedby={`mode-${m.name}-engine`}
              className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0 disabled:cursor-not-allowed"
              data-testid={`model-${m.name}`}
            />
            <span className="flex flex-wrap items-center gap-x-2 gap-y-1 font-semibold">
              {m.label}
              {m.generative && <GenerativeBadge short />}
              {m.available && !m.ai && <PreviewBadge engine="sharp" short />}
            </span>
            <EngineLine mode={m} />
          </label>
        ))}
      </div>
      {chosen && <ModeExplainer mode={chosen} />}
    </fieldset>
  );
}

/** Which engine serves the mode here, or why nothing does. */
function EngineLine({ mode }: { mode: ModeOption }) {
  const cls = "text-xs break-words text-stone-700 dark:text-stone-300";
  if (mode.available === null) {
    return (
      <span id={`mode-${mode.name}-engine`} className={cls}>
        Checking this server…
      </span>
    );
  }
  if (!mode.available) {
    return (
      <span id={`mode-${mode.name}-engine`} className={cls} data-testid={`mode-${mode.name}-reason`}>
        Unavailable: no engine on this server (the operator sets ENHANCE_{mode.name.toUpperCase()})
      </span>
    );
  }
  const [first, ...rest] = mode.engines;
  return (
    <span id={`mode-${mode.name}-engine`} className={cls} data-testid={`mode-${mode.name}-engine`}>
      <span className="font-mono">{first}</span>
      {first?.startsWith("onnx:") && " · on this server"}
      {rest.length > 0 && ` · then ${rest.length} fallback${rest.length > 1 ? "s" : ""}`}
    </span>
  );
}

/** What the chosen mode does, said before it runs; creative says it invents detail. */
function ModeExplainer({ mode }: { mode: ModeOption }) {
  return (
    <div
      className={`mt-2 rounded-lg border p-3 text-sm ${
        mode.generative
          ? "border-violet-300 bg-violet-50 text-violet-950 dark:border-violet-700 dark:bg-violet-950/60 dark:text-violet-100"
          : "border-stone-200 bg-stone-50 text-stone-800 dark:border-stone-700 dark:bg-stone-900 dark:text-stone-200"
      }`}
      aria-live="polite"
      data-testid="mode-explainer"
    >
      <p>{mode.summary}</p>
      {mode.licenceNotes && (
        <p className="mt-1 text-xs" data-testid="mode-licence">
          Licence: {mode.licenceNotes}
        </p>
      )}
    </div>
  );
}
