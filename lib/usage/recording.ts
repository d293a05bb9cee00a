// Records each generate and enhance request in the usage history once its answer is known: succeeded (200), failed
// (5xx: ours or a provider's) or refused (4xx past the key check: input, filter, quota). Free requests are counted
// in aggregate only. A recording that fails is logged and never changes the answer.
import type { Caller } from "@/lib/auth/types";
import type { JobRecord } from "@/lib/jobs/types";
import { describeError, log } from "@/lib/log";
import { observeJob } from "@/lib/metrics";
import type { UsageNote } from "@/lib/quota/ledger";
import { ERROR_CODES, type ErrorCode } from "@/lib/schemas/error-codes";
import type { UsageHistory, UsageOutcome } from "@/lib/usage/history";

export function outcomeOf(status: number): UsageOutcome {
  if (status < 400) return "succeeded";
  return status >= 500 ? "failed" : "refused";
}

export type RequestRecord = {
  endpoint: "generate" | "enhance";
  caller: Pick<Caller, "plan" | "keyId">;
  note: UsageNote;
  outcome: UsageOutcome;
  at?: number;
  /** How long the request or job took, for the metrics. */
  seconds: number;
};

/**
 * Counts one request (one line per unit when it made several images, and one failed line per image that failed);
 * for work that finishes outside the request (async jobs) too. Never throws.
 */
export async function recordRequest(svc: { usage: UsageHistory }, r: RequestRecord): Promise<void> {
  const labels = {
    kind: r.endpoint,
    model: r.note.model || "none",
    engine: r.note.engine || "none",
    outcome: r.outcome,
  };
  observeJob(labels, r.seconds);
  const event = {
    at: r.at ?? Date.now(),
    plan: r.caller.plan,
    keyId: r.caller.plan === "pro" ? (r.caller.keyId ?? null) : null,
    endpoint: r.endpoint,
    model: r.note.model ?? "",
    engine: r.note.engine ?? "",
  };
  const succeeded = r.outcome === "succeeded" ? Math.max(1, r.note.made ?? 1) : 0;
  const outcomes = [
    ...Array<UsageOutcome>(succeeded).fill("succeeded"),
    ...Array<UsageOutcome>(r.outcome === "succeeded" ? (r.note.failedImages ?? 0) : 0).fill("failed"),
  ];
  try {
    for (const outcome of outcomes.length > 0 ? outcomes : [r.outcome]) await svc.usage.record({ ...event, outcome });
  } catch (err) {
    log.warn("usage history: a request was not recorded", { endpoint: r.endpoint, ...describeError(err) });
  }
}

/**
 * For withApi: a function that records this request once, given its answer (the handler's result, or the status of
 * the error); undefined for requests that are not generate or enhance work (status reads, other methods). A 202
 * (accepted for later) is left to the job that does the work, and a replayed answer was counted the first time.
 */
export function usageRecorderFor(
  svc: { usage: UsageHistory },
  req: Pick<Request, "method">,
  endpoint: string,
  caller: Caller,
  note: UsageNote,
): ((answer: unknown) => Promise<void>) | undefined {
  if (req.method !== "POST" || (endpoint !== "generate" && endpoint !== "enhance")) return undefined;
  let done = false;
  const started = performance.now();
  return async (answer) => {
    const status = typeof answer === "number" ? answer : answer instanceof Response ? answer.status : 200;
    const replayed = answer instanceof Response && answer.headers.has("idempotent-replayed");
    if (done || status === 202 || replayed) return;
    done = true;
    const seconds = (performance.now() - started) / 1000;
    await recordRequest(svc, { endpoint, caller, note, outcome: outcomeOf(status), seconds });
  };
}

/**
 * An async job's line in the usage history, when it ends (its 202 was not counted): succeeded, failed by the
 * status of its error, or refused when the caller cancelled it.
 */
export function recordJob(svc: { usage: UsageHistory }, job: JobRecord): Promise<void> {
  const { plan = "free", keyId, model } = job.internal;
  const status =
    job.status === "succeeded"
      ? 200
      : job.status === "canceled"
        ? 499
        : (ERROR_CODES[job.error?.code as ErrorCode]?.status ?? 500);
  const engine = typeof job.result?.engine === "string" ? job.result.engine : undefined;
  return recordRequest(svc, {
    endpoint: job.kind,
    caller: { plan, keyId },
    // Each image a job made is one unit in the history.
    note: { model, engine, made: Array.isArray(job.result?.images) ? job.result.images.length : undefined },
    outcome: outcomeOf(status),
    at: Date.parse(job.finished_at ?? "") || Date.now(),
    seconds: Math.max(0, Date.parse(job.finished_at ?? "") - Date.parse(job.started_at ?? job.created_at)) / 1000 || 0,
  });
}
