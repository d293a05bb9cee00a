// One watcher per instance for every open event stream: each job watched is read once per tick however many
// streams follow it, and all watched jobs are read in one store call (JobStore.getMany). Every stream of a job hears
// the same records in the same order.
import type { JobStore } from "@/lib/jobs/store";
import { describeError, log } from "@/lib/log";
import type { JobRecord } from "./types";

/** How often the store is read while any job is watched: the state-to-event delay is at most about this. */
export const WATCH_TICK_MS = 250;
/** The tick while the backend pushes changes (changed()): only a safety net for a lost announcement. */
export const PUSHED_TICK_MS = 5000;
/** Pushes within this window share one read: busy jobs cost at most one read per window, not one per change. */
export const PUSH_COALESCE_MS = 50;

/** Hears every new record of one job, or null once the job is gone from the store. */
export type JobListener = (job: JobRecord | null) => void;

export type JobWatcher = {
  /** Follows one job until the returned function is called. */
  watch(id: string, listener: JobListener): () => void;
  /** Reads now instead of at the next tick. */
  poke(): void;
  /** A push from the backend: the job changed somewhere; reads now if it is watched here. */
  changed(id: string): void;
  /** Whether pushes arrive now; while they do, the tick slows to PUSHED_TICK_MS. */
  setPushed(live: boolean): void;
  /** Jobs watched right now. */
  readonly size: number;
};

type LastHeard = Map<string, { text: string; job: JobRecord | null }>;

/** Tells each job's listeners its record (null when gone) if it changed since the last read. */
function tellChanges(
  ids: string[],
  found: Map<string, JobRecord>,
  last: LastHeard,
  listeners: Map<string, Set<JobListener>>,
): void {
  for (const id of ids) {
    const job = found.get(id) ?? null;
    const text = job ? JSON.stringify(job) : "null";
    if (last.get(id)?.text === text) continue;
    last.set(id, { text, job });
    for (const listener of [...(listeners.get(id) ?? [])]) listener(job);
  }
}

/** Removes one listener; a job no one listens to any more is forgotten. */
function forget(id: string, listener: JobListener, last: LastHeard, listeners: Map<string, Set<JobListener>>): void {
  const current = listeners.get(id);
  if (!current) return;
  current.delete(listener);
  if (current.size === 0) {
    listeners.delete(id);
    last.delete(id);
  }
}

/** What the watcher's steps share: who listens to which job, what each last heard, and the tick's timer. */
type WatchState = {
  listeners: Map<string, Set<JobListener>>;
  last: LastHeard;
  tickMs: number;
  timer: NodeJS.Timeout | undefined;
};

/**
 * The reading loop: one read of every watched job per tick (none while no one watches), a poke reads at once, and
 * a poke during a read reads once more right after it.
 */
function readingLoop(jobs: Pick<JobStore, "getMany">, s: WatchState) {
  let reading: Promise<void> | undefined;
  let again = false;

  const schedule = () => {
    if (s.timer || s.listeners.size === 0) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void read();
    }, s.tickMs);
  };

  const read = (): Promise<void> => {
    if (reading) {
      again = true; // a poke during a read: read once more right after it
      return reading;
    }
    reading = (async () => {
      const ids = [...s.listeners.keys()];
      try {
        const found = ids.length > 0 ? await jobs.getMany(ids) : new Map<string, JobRecord>();
        tellChanges(ids, found, s.last, s.listeners);
      } catch (err) {
        // A store hiccup: streams keep their last state and the next tick tries again.
        log.warn("job events: read failed", { jobs: ids.length, ...describeError(err) });
      } finally {
        reading = undefined;
        if (again) {
          again = false;
          void read();
        } else schedule();
      }
    })();
    return reading;
  };

  const poke = () => {
    clearTimeout(s.timer);
    s.timer = undefined;
    if (s.listeners.size > 0) void read();
  };
  return { schedule, poke };
}

export function createJobWatcher(
  jobs: Pick<JobStore, "getMany">,
  opts: { tickMs?: number; pushedTickMs?: number; coalesceMs?: number } = {},
): JobWatcher & { close(): void } {
  const pollTickMs = opts.tickMs ?? WATCH_TICK_MS;
  const pushedTickMs = opts.pushedTickMs ?? PUSHED_TICK_MS;
  const coalesceMs = opts.coalesceMs ?? PUSH_COALESCE_MS;
  let pushTimer: NodeJS.Timeout | undefined;
  /** `last`: the last record heard per job, as JSON: a tick that finds no change tells no one. */
  const s: WatchState = { listeners: new Map(), last: new Map(), tickMs: pollTickMs, timer: undefined };
  const { listeners, last } = s;
  const { schedule, poke } = readingLoop(jobs, s);

  return {
    watch(id, listener) {
      const set = listeners.get(id) ?? new Set<JobListener>();
      listeners.set(id, set.add(listener));
      // A later stream of a job already watched hears the latest record at once, as the first streams did.
      const known = last.get(id);
      if (known) queueMicrotask(() => listeners.get(id)?.has(listener) && listener(known.job));
      schedule();
      return () => {
        forget(id, listener, last, listeners);
        if (listeners.size === 0) {
          clearTimeout(s.timer);
          s.timer = undefined;
        }
      };
    },
    poke,
    changed(id) {
      if (!listeners.has(id) || pushTimer) return;
      pushTimer = setTimeout(() => {
        pushTimer = undefined;
        poke();
      }, coalesceMs);
    },
    setPushed(live) {
      const next = live ? pushedTickMs : pollTickMs;
      if (next === s.tickMs) return;
      s.tickMs = next;
      // Pushes lost: read now and poll at the normal tick again. Pushes back: the next tick is a slow one.
      poke();
    },
    get size() {
      return listeners.size;
    },
    close() {
      clearTimeout(pushTimer);
      clearTimeout(s.timer);
      s.timer = undefined;
      listeners.clear();
      last.clear();
    },
  };
}
