// Where a job is: its place in line or its stage, a progress bar (determinate when the work reports a fraction),
// the elapsed time, and Cancel while it is queued or running.
"use client";
import { describeJob, type JobKind } from "@/lib/client/job-copy";
import { useElapsed } from "@/lib/client/use-elapsed";
import type { JobState } from "@/lib/client/use-job";
import { Spinner } from "./spinner";
import { secondaryButton } from "./styles";

type Props = {
  kind: JobKind;
  state: JobState;
  onCancel: () => void;
  /** Off where a button beside it already counts the seconds. */
  showElapsed?: boolean;
};

export function JobProgress({ kind, state, onCancel, showElapsed = true }: Props) {
  const elapsed = useElapsed(state.startedAt);
  const { label, detail, percent } = describeJob(kind, state.phase, state.progress);
  const cancellable = state.jobId !== null && (state.phase === "queued" || state.phase === "running");
  const noun = kind === "generate" ? "Generation" : "Enhancement";
  return (
    <div
      className="w-full space-y-2 text-left"
      data-testid="job-progress"
      data-phase={state.phase}
      data-percent={percent ?? ""}
    >
      <p className="flex items-center gap-2 text-sm font-medium text-stone-800 dark:text-stone-100">
        <Spinner className="size-4 shrink-0" />
        <span data-testid="job-label">{label}</span>
        {showElapsed && (
          <span className="ml-auto shrink-0 text-stone-600 tabular-nums dark:text-stone-300">
            {elapsed.toFixed(1)} s
          </span>
        )}
      </p>
      <div
        role="progressbar"
        aria-label={`${noun} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        aria-valuetext={percent !== null ? `${percent}%` : label}
        className="h-2 w-full overflow-hidden rounded-full bg-stone-200 dark:bg-stone-700"
      >
        {percent !== null ? (
          <div
            className="h-full rounded-full bg-safelight-600 transition-[width] duration-300 dark:bg-safelight-400"
            style={{ width: `${percent}%` }}
          />
        ) : (
          // Stripes read as "working, amount unknown" even where animation is off (reduced motion).
          <div className="h-full w-full animate-pulse rounded-full bg-[repeating-linear-gradient(-45deg,var(--color-stone-400)_0_6px,transparent_6px_12px)] dark:bg-[repeating-linear-gradient(-45deg,var(--color-stone-500)_0_6px,transparent_6px_12px)]" />
        )}
      </div>
      {(detail || percent !== null) && (
        <p className="flex gap-2 text-xs text-stone-600 dark:text-stone-300" data-testid="job-detail">
          {detail && (
            <span className="min-w-0 truncate font-mono" title={detail}>
              {detail}
            </span>
          )}
          {percent !== null && <span className="ml-auto tabular-nums">{percent}%</span>}
        </p>
      )}
      {state.cancelError && (
        <p className="text-xs text-red-800 dark:text-red-200" data-testid="cancel-error">
          {state.cancelError}
        </p>
      )}
      {(cancellable || state.phase === "canceling") && (
        <button
          type="button"
          className={`${secondaryButton} w-full sm:w-auto`}
          onClick={onCancel}
          disabled={!cancellable}
          data-testid="cancel-job"
        >
          {state.phase === "canceling" ? "Cancelling…" : "Cancel"}
        </button>
      )}
    </div>
  );
}
