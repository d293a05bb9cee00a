// A page's one job at a time: submit it async, show where it is, cancel it, and pick it up again after a reload.
"use client";
import { useCallback, useEffect, useRef, useState } from "react";
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

export function useJob<T, M>(page: JobPage, kind: JobKind, handlers: JobHandlers<T, M>) {
  const [state, setState] = useState<JobState | null>(null);
  const handlersRef = useRef(handlers);
  // Declared first, so the reattach effect below already sees this render's handlers.
  useEffect(() => {
    handlersRef.current = handlers;
  });
  const busy = useRef(false);
  const follow = useRef<AbortController | null>(null);
  /** The job being followed; settling clears it, so an outcome seen twice (cancel answer and stream) counts once. */
  const active = useRef<{ id: string; meta: M; auth: JobAuth } | null>(null);
  const lastLabel = useRef("");

  const announceChange = useCallback(
    (phase: JobPhase, progress: JobProgress | null) => {
      const { label } = describeJob(kind, phase, progress);
      if (label === lastLabel.current) return;
      lastLabel.current = label;
      handlersRef.current.onAnnounce(`${label}.`);
    },
    [kind],
  );

  const settle = useCallback(
    async (id: string, meta: M, outcome: JobOutcome<T>) => {
      if (outcome.status === "aborted" || active.current?.id !== id) return;
      const { auth } = active.current;
      active.current = null;
      forgetJob(page, id);
      const h = handlersRef.current;
      if (outcome.status === "succeeded") h.onSucceeded(outcome.result, meta);
      else if (outcome.status === "canceled") h.onCanceled(Boolean(outcome.job.started_at), meta);
      else if (outcome.status === "lost") h.onFailed({ ...outcome.error, code: "job_lost", requestId: id }, null);
      else h.onFailed({ ...outcome.error, requestId: id }, null);
      setState(null);
      busy.current = false;
      lastLabel.current = "";
      // A failed or cancelled job may have given its unit back; the stream's answers carry no quota headers for it.
      if (outcome.status !== "succeeded") {
        const quota = await fetchQuota(kind, auth);
        if (quota) handlersRef.current.onQuota(quota);
      }
    },
    [page, kind],
  );

  const track = useCallback(
    async (id: string, meta: M, auth: JobAuth) => {
      follow.current?.abort();
      const controller = new AbortController();
      follow.current = controller;
      const outcome = await followJob<T>(id, {
        signal: controller.signal,
        auth,
        onState: (status, progress) => {
          if (status !== "queued" && status !== "running") return;
          setState((s) =>
            s && s.jobId === id && s.phase !== "canceling" ? { ...s, phase: status, progress, cancelError: null } : s,
          );
          announceChange(status, progress);
        },
      });
      await settle(id, meta, outcome);
    },
    [settle, announceChange],
  );

  const start = useCallback(
    async (path: string, init: RequestInit, meta: M) => {
      if (busy.current) return;
      busy.current = true;
      const startedAt = Date.now();
      setState({ phase: "submitting", jobId: null, progress: null, startedAt, cancelError: null });
      announceChange("submitting", null);
      const res = await submitJob<T>(path, init);
      if (res.quota) handlersRef.current.onQuota(res.quota);
      if (!res.ok || "result" in res) {
        if (res.ok) handlersRef.current.onSucceeded(res.result, meta);
        else handlersRef.current.onFailed(res.error, res.quota);
        setState(null);
        busy.current = false;
        lastLabel.current = "";
        return;
      }
      const { id } = res.accepted;
      // The job is read with the credential it was made with (a pasted Pro key, or none).
      const auth = jobAuthOf(init.headers);
      active.current = { id, meta, auth };
      rememberJob(page, { id, startedAt, meta, withKey: "Authorization" in auth });
      setState({ phase: "queued", jobId: id, progress: null, startedAt, cancelError: null });
      await track(id, meta, auth);
    },
    [page, track, announceChange],
  );

  const cancel = useCallback(async () => {
    const id = state?.jobId;
    if (!id || (state.phase !== "queued" && state.phase !== "running")) return;
    const previous = state.phase;
    setState((s) => (s && s.jobId === id ? { ...s, phase: "canceling", cancelError: null } : s));
    announceChange("canceling", null);
    const res = await cancelJob(id, active.current?.auth ?? {});
    const job = active.current;
    if (res.ok && job?.id === id) {
      follow.current?.abort();
      await settle(id, job.meta, { status: "canceled", job: res.data });
      return;
    }
    // job_finished: it finished first, and the stream brings that outcome; anything else leaves the job as it was.
    if (!res.ok && res.error.code !== "job_finished") {
      const message = `Couldn't cancel: ${res.error.message}`;
      setState((s) => (s && s.jobId === id ? { ...s, phase: previous, cancelError: message } : s));
      handlersRef.current.onAnnounce(message);
    }
  }, [state, announceChange, settle]);

  // Reattach: read the job this tab remembered, then follow it, or settle it at once when it already finished.
  useEffect(() => {
    const pending = rememberedJob<M>(page);
    if (!pending) return;
    const { id, startedAt, meta } = pending;
    const auth = rememberedAuth(pending);
    busy.current = true;
    active.current = { id, meta, auth };
    handlersRef.current.onReattach?.(meta, startedAt);
    setState({ phase: "queued", jobId: id, progress: null, startedAt, cancelError: null });
    let stopped = false;
    void readJob<T>(id, auth).then((res) => {
      if (stopped) return;
      if (res.ok) {
        const outcome = outcomeOf<T>(res.data);
        if (outcome) return settle(id, meta, outcome);
        setState((s) =>
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
      follow.current?.abort();
    };
  }, [page, settle, track, announceChange]);

  useEffect(() => () => follow.current?.abort(), []);

  return { state, start, cancel };
}
