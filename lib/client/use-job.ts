// A page's one job at a time: submit it async, show where it is, cancel it, and pick it up again after a reload.
"use client";
import {
  type Dispatch,
  type RefObject,
  type SetStateAction,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { JobProgress } from "@/lib/jobs/types";
import type { ClientError, Quota } from "./api";
import { describeJob, type JobKind, type JobPhase } from "./job-copy";
import {
  cancelJob,
  fetchQuota,
  followJob,
  forgetJob,
  type JobAuth,
  type JobOutcome,
  type JobPage,
  jobAuthOf,
  outcomeOf,
  readJob,
  rememberedAuth,
  rememberedJob,
  rememberJob,
  submitJob,
} from "./jobs";

export type JobState = {
  phase: JobPhase;
  /** Null until the server accepted the job. */
  jobId: string | null;
  progress: JobProgress | null;
  startedAt: number;
  /** Why the last cancel did not go through, if it did not. */
  cancelError: string | null;
};

export type JobHandlers<T, M> = {
  onSucceeded: (result: T, meta: M) => void;
  /** `quota` is the answer's, when the request was refused before it became a job. */
  onFailed: (error: ClientError, quota: Quota | null) => void;
  /** `started` tells whether the work had begun (its unit is kept) or was still waiting (its unit came back). */
  onCanceled: (started: boolean, meta: M) => void;
  onQuota: (quota: Quota) => void;
  onAnnounce: (text: string) => void;
  /** A job this tab started before a reload is being followed again. */
  onReattach?: (meta: M, startedAt: number) => void;
};

/** What the job's steps share: this render's handlers, the state setter, and the job being followed. */
type JobRefs<T, M> = {
  handlersRef: RefObject<JobHandlers<T, M>>;
  setState: Dispatch<SetStateAction<JobState | null>>;
  busy: RefObject<boolean>;
  follow: RefObject<AbortController | null>;
  /** The job being followed; settling clears it, so an outcome seen twice (cancel answer and stream) counts once. */
  active: RefObject<{ id: string; meta: M; auth: JobAuth } | null>;
  lastLabel: RefObject<string>;
};

/** Back to no job: nothing shown, a new one may start, and the next label is announced afresh. */
function becomeIdle<T, M>(r: JobRefs<T, M>): void {
  r.setState(null);
  r.busy.current = false;
  r.lastLabel.current = "";
}

function useJobRefs<T, M>(
  handlers: JobHandlers<T, M>,
  setState: Dispatch<SetStateAction<JobState | null>>,
): JobRefs<T, M> {
  const handlersRef = useRef(handlers);
  // Declared first, so the reattach effect below already sees this render's handlers.
  useEffect(() => {
    handlersRef.current = handlers;
  });
  const busy = useRef(false);
  const follow = useRef<AbortController | null>(null);
  const active = useRef<{ id: string; meta: M; auth: JobAuth } | null>(null);
  const lastLabel = useRef("");
  // One object for the job's life, so the steps' callbacks (and the reattach effect) keep their identity.
  return useMemo(() => ({ handlersRef, setState, busy, follow, active, lastLabel }), [setState]);
}

/** Announces a phase's label once, and settles a job's outcome once (with the quota read back when not a success). */
function useSettle<T, M>(page: JobPage, kind: JobKind, r: JobRefs<T, M>) {
  const announceChange = useCallback(
    (phase: JobPhase, progress: JobProgress | null) => {
      const { label } = describeJob(kind, phase, progress);
      if (label === r.lastLabel.current) return;
      r.lastLabel.current = label;
      r.handlersRef.current.onAnnounce(`${label}.`);
    },
    [kind, r],
  );

  const settle = useCallback(
    async (id: string, meta: M, outcome: JobOutcome<T>) => {
      if (outcome.status === "aborted" || r.active.current?.id !== id) return;
      const { auth } = r.active.current;
      r.active.current = null;
      forgetJob(page, id);
      const h = r.handlersRef.current;
      if (outcome.status === "succeeded") h.onSucceeded(outcome.result, meta);
      else if (outcome.status === "canceled") h.onCanceled(Boolean(outcome.job.started_at), meta);
      else if (outcome.status === "lost") h.onFailed({ ...outcome.error, code: "job_lost", requestId: id }, null);
      else h.onFailed({ ...outcome.error, requestId: id }, null);
      becomeIdle(r);
      // A failed or cancelled job may have given its unit back; the stream's answers carry no quota headers for it.
      if (outcome.status !== "succeeded") {
        const quota = await fetchQuota(kind, auth);
        if (quota) r.handlersRef.current.onQuota(quota);
      }
    },
    [page, kind, r],
  );
  return { announceChange, settle };
}

type Settle<T, M> = ReturnType<typeof useSettle<T, M>>;

/** Follows a job's events until it ends, showing and announcing its phase and progress. */
function useTrack<T, M>(r: JobRefs<T, M>, { settle, announceChange }: Settle<T, M>) {
  return useCallback(
    async (id: string, meta: M, auth: JobAuth) => {
      r.follow.current?.abort();
      const controller = new AbortController();
      r.follow.current = controller;
      const outcome = await followJob<T>(id, {
        signal: controller.signal,
        auth,
        onState: (status, progress) => {
          if (status !== "queued" && status !== "running") return;
          r.setState((s) =>
            s && s.jobId === id && s.phase !== "canceling" ? { ...s, phase: status, progress, cancelError: null } : s,
          );
          announceChange(status, progress);
        },
      });
      await settle(id, meta, outcome);
    },
    [settle, announceChange, r],
  );
}

type Track<M> = (id: string, meta: M, auth: JobAuth) => Promise<void>;

/** Submits a job (answered at once, refused, or accepted and then followed and remembered for a reload). */
function useStart<T, M>(page: JobPage, r: JobRefs<T, M>, track: Track<M>, { announceChange }: Settle<T, M>) {
  return useCallback(
    async (path: string, init: RequestInit, meta: M) => {
      if (r.busy.current) return;
      r.busy.current = true;
      const startedAt = Date.now();
      r.setState({ phase: "submitting", jobId: null, progress: null, startedAt, cancelError: null });
      announceChange("submitting", null);
      const res = await submitJob<T>(path, init);
      if (res.quota) r.handlersRef.current.onQuota(res.quota);
      if (!res.ok || "result" in res) {
        if (res.ok) r.handlersRef.current.onSucceeded(res.result, meta);
        else r.handlersRef.current.onFailed(res.error, res.quota);
        becomeIdle(r);
        return;
      }
      const { id } = res.accepted;
      // The job is read with the credential it was made with (a pasted Pro key, or none).
      const auth = jobAuthOf(init.headers);
      r.active.current = { id, meta, auth };
      rememberJob(page, { id, startedAt, meta, withKey: "Authorization" in auth });
      r.setState({ phase: "queued", jobId: id, progress: null, startedAt, cancelError: null });
      await track(id, meta, auth);
    },
    [page, track, announceChange, r],
  );
}

/** Cancels the job shown, if it is queued or running; a refusal puts it back as it was, with the reason. */
function useCancel<T, M>(state: JobState | null, r: JobRefs<T, M>, { settle, announceChange }: Settle<T, M>) {
  return useCallback(async () => {
    const id = state?.jobId;
    if (!id || (state.phase !== "queued" && state.phase !== "running")) return;
    const previous = state.phase;
    r.setState((s) => (s && s.jobId === id ? { ...s, phase: "canceling", cancelError: null } : s));
    announceChange("canceling", null);
    const res = await cancelJob(id, r.active.current?.auth ?? {});
    const job = r.active.current;
    if (res.ok && job?.id === id) {
      r.follow.current?.abort();
      await settle(id, job.meta, { status: "canceled", job: res.data });
      return;
    }
    // job_finished: it finished first, and the stream brings that outcome; anything else leaves the job as it was.
    if (!res.ok && res.error.code !== "job_finished") {
      const message = `Couldn't cancel: ${res.error.message}`;
      r.setState((s) => (s && s.jobId === id ? { ...s, phase: previous, cancelError: message } : s));
      r.handlersRef.current.onAnnounce(message);
    }
  }, [state, announceChange, settle, r]);
}

/** Reattach: read the job this tab remembered, then follow it, or settle it at once when it already finished. */
function useReattach<T, M>(page: JobPage, r: JobRefs<T, M>, track: Track<M>, { settle, announceChange }: Settle<T, M>) {
  useEffect(() => {
    const pending = rememberedJob<M>(page);
    if (!pending) return;
    const { id, startedAt, meta } = pending;
    const auth = rememberedAuth(pending);
    r.busy.current = true;
    r.active.current = { id, meta, auth };
    r.handlersRef.current.onReattach?.(meta, startedAt);
    r.setState({ phase: "queued", jobId: id, progress: null, startedAt, cancelError: null });
    let stopped = false;
    void readJob<T>(id, auth).then((res) => {
      if (stopped) return;
      if (res.ok) {
        const outcome = outcomeOf<T>(res.data);
        if (outcome) return settle(id, meta, outcome);
        r.setState((s) =>
          s && s.jobId === id ? { ...s, phase: res.data.status as JobPhase, progress: res.data.progress } : s,
        );
        announceChange(res.data.status as JobPhase, res.data.progress);
      } else if (res.error.code !== "network" && res.error.status !== 429 && res.error.status < 500) {
        return settle(id, meta, { status: "lost", error: res.error });
      }
      return track(id, meta, auth);
    });
    return () => {
      stopped = true;
      r.follow.current?.abort();
    };
  }, [page, settle, track, announceChange, r]);
}

export function useJob<T, M>(page: JobPage, kind: JobKind, handlers: JobHandlers<T, M>) {
  const [state, setState] = useState<JobState | null>(null);
  const r = useJobRefs(handlers, setState);
  const steps = useSettle(page, kind, r);
  const track = useTrack(r, steps);
  const start = useStart(page, r, track, steps);
  const cancel = useCancel(state, r, steps);
  useReattach(page, r, track, steps);
  useEffect(() => () => r.follow.current?.abort(), [r]);
  return { state, start, cancel };
}
