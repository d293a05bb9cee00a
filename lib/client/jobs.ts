// Async jobs from the browser: submit with Prefer: respond-async, follow the job's events, cancel it, and remember
// it in this tab so a reload can pick it up again.
import type { JobProgress, JobStatus, JobView } from "@/lib/jobs/types";
import type { StatusResponse } from "@/lib/schemas/status";
import { type ApiResult, BROWSER_HEADERS, type ClientError, callApi, type Quota, readError } from "./api";
import { authHeader, loadProKey } from "./images";
import type { JobKind } from "./job-copy";
import { SseParser } from "./sse";

export type AcceptedJob = { success: true; id: string; status: "queued"; status_url: string; events_url: string };

export type Submitted<T> =
  | { ok: true; accepted: AcceptedJob; quota: Quota | null }
  /** The server may answer at once (RFC 7240 makes the preference a hint): the finished body. */
  | { ok: true; result: T; quota: Quota | null }
  | { ok: false; error: ClientError; quota: Quota | null };

export type JobOutcome<T> =
  | { status: "succeeded"; result: T }
  | { status: "failed"; error: ClientError }
  /** `job` is the record at the cancel: `started_at` tells whether the unit was kept. */
  | { status: "canceled"; job: Partial<JobView> }
  /** The job cannot be read any more (expired, or the caller's identity changed). */
  | { status: "lost"; error: ClientError }
  | { status: "aborted" };

export async function submitJob<T>(path: string, init: RequestInit): Promise<Submitted<T>> {
  const res = await callApi<T | AcceptedJob>(path, {
    ...init,
    headers: { ...init.headers, Prefer: "respond-async" },
  });
  if (!res.ok) return res;
  if (res.status === 202) return { ok: true, accepted: res.data as AcceptedJob, quota: res.quota };
  return { ok: true, result: res.data as T, quota: res.quota };
}

const jobPath = (id: string) => `/api/jobs/${encodeURIComponent(id)}`;

/**
 * Who a job belongs to: a job submitted with the Pro key pasted in this tab is the key's, and reading, following and
 * cancelling it need the key; any other job is the browser's (its address), and must be read without a key.
 */
export type JobAuth = Record<string, string>;

/** The credential of a job submitted with `headers`. */
export function jobAuthOf(headers: HeadersInit | undefined): JobAuth {
  const authorization = new Headers(headers).get("authorization");
  return authorization ? { Authorization: authorization } : {};
}

export function readJob<T>(id: string, auth: JobAuth): Promise<ApiResult<JobView & { result?: T }>> {
  return callApi(jobPath(id), { headers: auth });
}

/** 409 job_finished when it finished first; the events stream then brings the outcome. */
export function cancelJob(id: string, auth: JobAuth): Promise<ApiResult<JobView>> {
  return callApi(jobPath(id), { method: "DELETE", headers: auth });
}

/** The day's quota of one kind of work, after a job gave its unit back. */
export async function fetchQuota(kind: JobKind, auth: JobAuth): Promise<Quota | null> {
  const res = await callApi<StatusResponse>("/api/status", { headers: auth });
  if (!res.ok) return null;
  const counter = kind === "enhance" ? (res.data.enhance ?? res.data) : res.data;
  return { limit: counter.limit_today, remaining: counter.remaining, resetAtMs: Date.parse(res.data.reset_at) };
}

/** The outcome a finished record stands for; null while it is still queued or running. */
export function outcomeOf<T>(job: JobView & { result?: T }): JobOutcome<T> | null {
  if (job.status === "succeeded") return { status: "succeeded", result: job.result as T };
  if (job.status === "failed") return { status: "failed", error: jobError(job.error) };
  if (job.status === "canceled") return { status: "canceled", job };
  return null;
}

type FollowOptions = {
  onState: (status: JobStatus, progress: JobProgress) => void;
  signal: AbortSignal;
  auth: JobAuth;
};

// The server sends a comment at least every 15 s; a stream silent for longer is stuck behind something.
const STREAM_IDLE_MS = 40_000;
const POLL_MS = 1_000;
const MIN_RECONNECT_MS = 250;
const MAX_BACKOFF_MS = 10_000;
// Streams that keep breaking (a proxy that buffers them, say) give way to polling the record.
const STREAM_FAILURES_BEFORE_POLLING = 3;

/**
 * Follows a job to its end: its events stream read with fetch (so the request carries X-Requested-With), reopened
 * when it drops (it starts with the current state), and polling GET /api/jobs/{id} where streaming does not work.
 */
export async function followJob<T>(id: string, opts: FollowOptions): Promise<JobOutcome<T>> {
  let failures = 0;
  let polling = false;
  while (!opts.signal.aborted) {
    const step = polling ? await pollOnce<T>(id, opts) : await streamOnce<T>(id, opts);
    if ("outcome" in step) return step.outcome;
    if (step.unsupported) polling = true;
    failures = step.progressed ? 0 : failures + 1;
    if (!polling && failures >= STREAM_FAILURES_BEFORE_POLLING) polling = true;
    const backoff = failures === 0 ? MIN_RECONNECT_MS : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (failures - 1));
    await sleep(Math.max(step.waitMs ?? 0, polling ? POLL_MS : backoff), opts.signal);
  }
  return { status: "aborted" };
}

type Step<T> = { outcome: JobOutcome<T> } | { progressed: boolean; waitMs?: number; unsupported?: boolean };

async function streamOnce<T>(id: string, opts: FollowOptions): Promise<Step<T>> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  opts.signal.addEventListener("abort", abort, { once: true });
  let idle: ReturnType<typeof setTimeout> | undefined;
  const stillAlive = () => {
    clearTimeout(idle);
    idle = setTimeout(abort, STREAM_IDLE_MS);
  };
  let progressed = false;
  try {
    stillAlive();
    const res = await fetch(`${jobPath(id)}/events`, {
      headers: { ...BROWSER_HEADERS, ...opts.auth, Accept: "text/event-stream" },
      cache: "no-store",
      signal: controller.signal,
    });
    if (!res.ok) return refusal<T>(res.status, await res.json().catch(() => null), res.headers);
    if (!res.body) return { progressed: false, unsupported: true };
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { progressed };
      stillAlive();
      for (const message of parser.push(value)) {
        const data = parseJson(message.data);
        if (message.event === "progress") {
          const { status, progress } = (data ?? {}) as { status?: JobStatus; progress?: JobProgress };
          if (status && progress) opts.onState(status, progress);
          progressed = true;
        } else if (message.event === "succeeded") {
          return { outcome: { status: "succeeded", result: data as T } };
        } else if (message.event === "failed") {
          return { outcome: { status: "failed", error: jobError(data as JobView["error"]) } };
        } else if (message.event === "canceled") {
          return { outcome: { status: "canceled", job: (data ?? {}) as Partial<JobView> } };
        }
      }
    }
  } catch {
    return { progressed };
  } finally {
    clearTimeout(idle);
    opts.signal.removeEventListener("abort", abort);
    controller.abort();
  }
}

async function pollOnce<T>(id: string, opts: FollowOptions): Promise<Step<T>> {
  const res = await readJob<T>(id, opts.auth);
  if (!res.ok) {
    if (res.error.code === "network") return { progressed: false };
    return refusalOf<T>(res.error);
  }
  const outcome = outcomeOf<T>(res.data);
  if (outcome) return { outcome };
  opts.onState(res.data.status, res.data.progress);
  return { progressed: true };
}

function refusal<T>(status: number, body: unknown, headers: Headers): Step<T> {
  return refusalOf<T>(readError(status, body, headers));
}

/** 404: the job is gone for this caller. 429 and 5xx pass; anything else will not get better by retrying. */
function refusalOf<T>(error: ClientError): Step<T> {
  if (error.status === 429 || error.status >= 500) {
    return { progressed: false, waitMs: (error.retryAfterSec ?? 0) * 1000 };
  }
  return { outcome: { status: "lost", error } };
}

function jobError(error: JobView["error"] | null | undefined): ClientError {
  return {
    code: typeof error?.code === "string" ? error.code : "server_error",
    message: typeof error?.message === "string" ? error.message : "The job failed.",
    status: 0,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

// Remembered per tab in sessionStorage: a reload or a restored tab picks its job up again, while other tabs, which
// never showed that job, are left alone. Job ids are useless elsewhere anyway: only the creating identity sees them.
const PENDING_KEY = "darkroom.jobs.v1";

export type JobPage = "studio" | "enhance";
/** `withKey`: submitted with the pasted Pro key (never the key itself: that stays where the studio keeps it). */
export type PendingJob<M> = { id: string; startedAt: number; meta: M; withKey?: boolean };

function readPending(): Partial<Record<JobPage, PendingJob<unknown>>> {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(PENDING_KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Partial<Record<JobPage, PendingJob<unknown>>>) : {};
  } catch {
    return {};
  }
}

function writePending(all: Partial<Record<JobPage, PendingJob<unknown>>>) {
  try {
    if (Object.keys(all).length === 0) window.sessionStorage.removeItem(PENDING_KEY);
    else window.sessionStorage.setItem(PENDING_KEY, JSON.stringify(all));
  } catch {
    // Storage unavailable (private mode, quota): the job still runs, only a reload cannot find it.
  }
}

export function rememberJob<M>(page: JobPage, job: PendingJob<M>) {
  writePending({ ...readPending(), [page]: job });
}

/** Forgets the page's job, if it is still this one. */
export function forgetJob(page: JobPage, id: string) {
  const all = readPending();
  if (all[page]?.id !== id) return;
  delete all[page];
  writePending(all);
}

export function rememberedJob<M>(page: JobPage): PendingJob<M> | null {
  const job = readPending()[page];
  if (!job || typeof job.id !== "string" || !/^job_[a-f0-9]{32}$/.test(job.id)) return null;
  return {
    id: job.id,
    startedAt: Number(job.startedAt) || Date.now(),
    meta: job.meta as M,
    withKey: job.withKey === true,
  };
}

/** After a reload: the pasted key again, for a job that was submitted with one. */
export function rememberedAuth(job: PendingJob<unknown>): JobAuth {
  const key = job.withKey === true ? loadProKey() : null;
  return key ? authHeader(key) : {};
}
