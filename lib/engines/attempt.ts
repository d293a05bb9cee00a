// One attempt of one route, the same for generation's model chains and enhancement's mode chains: the route's own
// deadline, a race against the abort (an SDK step that ignores its signal still settles), the failure classified,
// a `darkroom.route_attempt` span, the /metrics route attempt, the health record that /api/status, readiness and
// the console read, and a log line for a failure. Each chain keeps its own answer checks (`check`) and decides what
// a failure means for the chain; `exhaustedError` is what an exhausted chain throws.
import { ChainExhausted } from "@/lib/errors";
import { log } from "@/lib/log";
import { type AttemptOutcome, observeRouteAttempt } from "@/lib/metrics";
import { withSpan } from "@/lib/metrics/trace";
import { classifyFailure, type Failure } from "./failures";
import type { HealthBook } from "./health";

export type Attempted<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export type AttemptSpec = {
  /** The route id, as configured and reported (a metric label, a span attribute, the health book's key). */
  route: string;
  /** What the work is for, on the span and the log line: `{ model }` or `{ mode }`. */
  labels: Record<string, string>;
  requestId: string;
  /** The job's signal: the caller left or cancelled. */
  signal: AbortSignal;
  /** The route's deadline; past it the attempt fails as a timeout and the route's signal aborts. */
  timeoutMs: number;
  health: HealthBook;
};

/**
 * Runs `call` under the job's signal and the route's deadline, then `check` on its answer (after the deadline is
 * cleared: normalizing or decoding the answer is ours, not the route's time). Never throws: a failure of either is
 * classified. A moderation refusal counts as a healthy call; a cancelled one is not recorded.
 */
export async function attemptRoute<R, T>(
  spec: AttemptSpec,
  call: (signal: AbortSignal) => Promise<R>,
  check: (answer: R) => Promise<T>,
): Promise<Attempted<T>> {
  const started = performance.now();
  const outcome = await withSpan(
    "darkroom.route_attempt",
    { "darkroom.route": spec.route, ...spec.labels },
    async (span) => {
      const result = await runAttempt(spec, call, check);
      const label = outcomeOf(result);
      observeRouteAttempt(spec.route, label);
      span.set("darkroom.outcome", label);
      return result;
    },
  );
  const ms = performance.now() - started;
  if (outcome.ok) {
    spec.health.record(spec.route, true, ms);
    return outcome;
  }
  const { failure } = outcome;
  log.warn("provider route failed", {
    request_id: spec.requestId,
    ...spec.labels,
    route: spec.route,
    kind: failure.kind,
    status: failure.status,
    detail: failure.detail,
  });
  // A safety refusal is an answer from a working route, and a cancel says nothing about the route.
  if (failure.kind !== "cancelled") spec.health.record(spec.route, failure.kind === "moderation", ms);
  return outcome;
}

function outcomeOf(outcome: Attempted<unknown>): AttemptOutcome {
  if (outcome.ok) return "ok";
  const { kind } = outcome.failure;
  return kind === "moderation" ? "moderated" : kind === "cancelled" ? "cancelled" : "failed";
}

async function runAttempt<R, T>(
  spec: AttemptSpec,
  call: (signal: AbortSignal) => Promise<R>,
  check: (answer: R) => Promise<T>,
): Promise<Attempted<T>> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error("route deadline")), spec.timeoutMs);
  const signal = AbortSignal.any([spec.signal, deadline.signal]);
  const signals = () => ({ timedOut: deadline.signal.aborted, cancelled: spec.signal.aborted });
  try {
    const answer = await raceAbort(call(signal), signal);
    clearTimeout(timer);
    return { ok: true, value: await check(answer) };
  } catch (err) {
    return { ok: false, failure: classifyFailure(err, signals()) };
  } finally {
    clearTimeout(timer);
  }
}

/** Settles at the deadline even if an SDK step ignores the signal (e.g. a poll delay). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const DEFAULT_BUSY_RETRY_AFTER = 30;

/**
 * What a chain whose every route failed throws: busy (with the longest Retry-After asked) when all were at
 * capacity, else a failure the caller may retry. `work` names the chain on the log line and in the answer.
 */
export function exhaustedError(
  work: ChainExhausted["work"],
  failures: Failure[],
  fields: Record<string, string>,
): ChainExhausted {
  log.error(`${work} chain exhausted`, { ...fields, failures: failures.map((f) => f.kind) });
  const allAtCapacity = failures.length > 0 && failures.every((f) => f.kind === "capacity");
  if (!allAtCapacity) return new ChainExhausted(false, undefined, work);
  const retryAfter = Math.max(...failures.map((f) => f.retryAfter ?? DEFAULT_BUSY_RETRY_AFTER));
  return new ChainExhausted(true, retryAfter, work);
}
