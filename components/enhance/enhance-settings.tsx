// The enhance page's settings panel: mode, prompt, strength, scale and format, the Enhance button, and the running
// job's progress, error or cancel notice.
"use client";
import { CancelNotice } from "@/components/ui/cancel-notice";
import { ErrorNotice } from "@/components/ui/error-notice";
import { FormatPicker } from "@/components/ui/format-picker";
import { JobProgress } from "@/components/ui/job-progress";
import { Spinner } from "@/components/ui/spinner";
import { panel, primaryButton } from "@/components/ui/styles";
import type { OutputFormat } from "@/lib/client/output-format";
import { useElapsed } from "@/lib/client/use-elapsed";
import { EnhanceOptions, type EnhanceSettingsValue } from "./enhance-options";
import type { ModeOption } from "./mode-picker";
import type { useEnhanceJob } from "./use-enhance-job";

type Props = {
  settings: EnhanceSettingsValue;
  onSettings: (patch: Partial<EnhanceSettingsValue>) => void;
  modes: ModeOption[];
  format: OutputFormat;
  onFormat: (f: OutputFormat) => void;
  run: ReturnType<typeof useEnhanceJob>;
  /** Whether there is a photo to enhance, and whether one is being resized. */
  hasImage: boolean;
  resizing: boolean;
  onEnhance: () => void;
};

export function EnhanceSettings({ settings, onSettings, modes, format, onFormat, run, ...props }: Props) {
  const { job, error, canceled, quota } = run;
  const startedAt = job.state?.startedAt ?? null;
  const elapsed = useElapsed(startedAt);
  const chosen = modes.find((m) => m.name === settings.model);
  return (
    <section aria-labelledby="settings-heading" className={`${panel} space-y-5 p-4`}>
      <h2 id="settings-heading" className="text-base font-semibold">
        Settings
      </h2>
      <EnhanceOptions value={settings} onChange={onSettings} modes={modes} />
      <FormatPicker value={format} onChange={onFormat} />
      <button
        type="button"
        className={`${primaryButton} w-full py-3 text-base`}
        disabled={!props.hasImage || props.resizing || startedAt !== null || chosen?.available === false}
        onClick={props.onEnhance}
        data-testid="enhance"
      >
        {startedAt !== null ? (
          <>
            <Spinner /> Enhancing… <span className="tabular-nums">{elapsed.toFixed(1)} s</span>
          </>
        ) : (
          "Enhance"
        )}
      </button>
      {!props.hasImage && (
        <p className="text-center text-xs text-stone-600 dark:text-stone-400">Choose an image to enable Enhance.</p>
      )}
      {job.state && (
        <JobProgress kind="enhance" state={job.state} onCancel={() => void job.cancel()} showElapsed={false} />
      )}
      {error && (
        <ErrorNotice
          error={error}
          quota={quota}
          noun="enhancements"
          onRetry={props.hasImage ? props.onEnhance : undefined}
        />
      )}
      {canceled && <CancelNotice kind="enhance" started={canceled.started} />}
    </section>
  );
}
