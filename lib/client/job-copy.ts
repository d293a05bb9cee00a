// What the pages say about a job in progress and after a cancel, in one place so both pages word it alike.
import type { JobProgress } from "@/lib/jobs/types";

export type JobKind = "generate" | "enhance";
/** Where a page's job is: sending it, waiting in line, running, or being cancelled. */
export type JobPhase = "submitting" | "queued" | "running" | "canceling";

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 101st, 111th. */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
  return `${n}${suffix}`;
}

// Stages the service itself names; anything else is an engine's or provider's own status ("bfl: pending"), shown
// verbatim: recasing it would garble provider names and route ids.
const GENERIC_STAGES = new Set(["", "queued", "waiting", "running"]);
const KNOWN_STAGES: Record<string, string> = {
  decoding: "Reading your image",
  enhancing: "Enhancing the detail",
  storing: "Saving the result",
};

export type JobDescription = {
  /** One short line: what is happening now; announced to screen readers when it changes. */
  label: string;
  /** The engine's or provider's own stage, verbatim, when it reports one. */
  detail: string | null;
  /** 0–100 when the work reports how far it got; null when it cannot tell. */
  percent: number | null;
};

export function describeJob(kind: JobKind, phase: JobPhase, progress: JobProgress | null): JobDescription {
  const working = kind === "generate" ? "Generating your image" : "Enhancing your image";
  if (phase === "submitting") return { label: "Sending your request", detail: null, percent: null };
  if (phase === "canceling") return { label: "Cancelling", detail: null, percent: null };
  if (phase === "queued") {
    const position = progress?.queue_position ?? null;
    return {
      label: position !== null && position > 0 ? `Waiting — ${ordinal(position)} in line` : "Waiting in line",
      detail: null,
      percent: null,
    };
  }
  const stage = (progress?.stage ?? "").trim();
  const known = KNOWN_STAGES[stage.toLowerCase()];
  const fraction = progress?.fraction;
  return {
    label: known ?? working,
    detail: known || GENERIC_STAGES.has(stage.toLowerCase()) ? null : stage,
    percent: typeof fraction === "number" ? Math.round(Math.min(1, Math.max(0, fraction)) * 100) : null,
  };
}

/** What a cancel did to the day's quota: a job still waiting gives its unit back, a running one keeps it. */
export function describeCancel(kind: JobKind, startedBeforeCancel: boolean): { title: string; detail: string } {
  const unit = kind === "generate" ? "free generation" : "free enhancement";
  return startedBeforeCancel
    ? {
        title: "Cancelled while running",
        detail: `The work had already started, so this still counts as one ${unit} today — it was not given back.`,
      }
    : {
        title: "Cancelled before it started",
        detail: `It was still waiting in line, so your ${unit} was given back.`,
      };
}
