// A fixed-size pool of worker threads: started lazily, kept, replaced when one crashes, restarted with backoff
// when a replacement fails to start. Jobs wait per group and are taken round-robin across groups.
import { type Transferable, Worker } from "node:worker_threads";
import { QueueFull } from "@/lib/errors";
import type { WorkerReply } from "./protocol";

type Job = {
  id: number;
  group: unknown;
  task: unknown;
  transfer: Transferable[];
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
};

type Slot = { worker: Worker; ready: boolean; job?: Job };

export type PoolOptions = {
  /** A file Node can load directly (not bundled). */
  script: string;
  size: number;
  workerData?: unknown;
  /** Extra heap for pixel buffers in flight. */
  resourceLimits?: { maxOldGenerationSizeMb?: number };
  /** Delay before the first restart after a failed start, doubled per further failure up to `max`. */
  restartBackoffMs?: { initial: number; max: number };
};

/** Error codes of a worker that cannot load its runtime at all (module missing, native binding unloadable). */
export const RUNTIME_LOAD_ERRORS = new Set(["MODULE_NOT_FOUND", "ERR_DLOPEN_FAILED", "ERR_RUNTIME_UNAVAILABLE"]);

const DEFAULT_BACKOFF = { initial: 500, max: 30_000 };

/** The runtime cannot load: decided once, on the first start, and every later run rejects with it. */
export class WorkerStartError extends Error {
  override name = "WorkerStartError";
}

export class WorkerCrashError extends Error {
  override name = "WorkerCrashError";
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  /** Waiting jobs per group; Map order is the round-robin order (a served group moves to the back). */
  private readonly groups = new Map<unknown, Job[]>();
  private waiting = 0;
  private nextId = 1;
  private closed = false;
  private everReady = false;
  private failedStarts = 0;
  private restartTimer?: NodeJS.Timeout;
  private restartAt = 0;
  /** Set when the first worker cannot load its runtime; every later run rejects with it. */
  startFailure?: WorkerStartError;
  /** Jobs each worker has finished, crashes, worker starts and failed starts: for tests and logs. */
  readonly stats = { completed: 0, crashed: 0, started: 0, failedStarts: 0 };

  constructor(private readonly opts: PoolOptions) {}

  get size() {
    return this.opts.size;
  }

  /** True once a worker has loaded the runtime. */
  get loaded() {
    return this.everReady;
  }

  /** Starts one worker if none is alive or starting, so the runtime loads before the first job (readiness). */
  warm(): void {
    if (this.closed || this.startFailure || this.restartTimer || this.slots.length > 0) return;
    this.startWorker();
  }

  /** True while no worker is alive and the next start waits for its backoff: runs are refused with QueueFull. */
  get restarting() {
    return this.restartTimer !== undefined && this.slots.length === 0;
  }

  /**
   * Runs a job on the next free worker; a job still waiting when `signal` aborts is dropped and never runs.
   * Jobs of one `group` (one image) wait in order; groups take turns, so a small image is not stuck behind a big one.
   */
  run<T>(task: unknown, opts: { transfer?: Transferable[]; signal?: AbortSignal; group?: unknown } = {}): Promise<T> {
    if (this.startFailure) return Promise.reject(this.startFailure);
    if (this.closed) return Promise.reject(new Error("worker pool closed"));
    if (this.restarting) return Promise.reject(this.refusal());
    opts.signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const job: Job = {
        id,
        group: opts.group ?? Symbol(`job ${id}`),
        task,
        transfer: opts.transfer ?? [],
        resolve: resolve as (v: unknown) => void,
        reject,
        signal: opts.signal,
      };
      const signal = opts.signal;
      if (signal) {
        job.onAbort = () => {
          if (!this.unqueue(job)) return; // already running: it finishes, its result is just not used
          reject(signal.reason);
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      const queue = this.groups.get(job.group);
      if (queue) queue.push(job);
      else this.groups.set(job.group, [job]);
      this.waiting++;
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    this.rejectWaiting(new Error("worker pool closed"));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private refusal() {
    return new QueueFull(Math.max(1, Math.ceil((this.restartAt - Date.now()) / 1000)));
  }

  private unqueue(job: Job): boolean {
    const queue = this.groups.get(job.group);
    const i = queue ? queue.indexOf(job) : -1;
    if (!queue || i === -1) return false;
    queue.splice(i, 1);
    if (queue.length === 0) this.groups.delete(job.group);
    this.waiting--;
    return true;
  }

  /** The first job of the group whose turn it is; that group then goes to the back of the line. */
  private takeNext(): Job | undefined {
    for (const [group, queue] of this.groups) {
      const job = queue.shift();
      this.groups.delete(group);
      if (queue.length > 0) this.groups.set(group, queue);
      if (job) {
        this.waiting--;
        return job;
      }
    }
    return undefined;
  }

  private rejectWaiting(err: unknown) {
    const jobs = [...this.groups.values()].flat();
    this.groups.clear();
    this.waiting = 0;
    for (const job of jobs) {
      if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
      job.reject(err);
    }
  }

  private dispatch() {
    while (this.waiting > 0) {
      const idle = this.slots.find((s) => s.ready && !s.job);
      if (!idle) {
        // Start workers lazily, one per waiting job, up to the pool size; during a backoff the timer starts one.
        const starting = this.slots.filter((s) => !s.ready).length;
        if (!this.restartTimer && this.slots.length < this.opts.size && starting < this.waiting) this.startWorker();
        return;
      }
      const job = this.takeNext();
      if (!job) return;
      if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
      idle.job = job;
      idle.worker.postMessage({ id: job.id, task: job.task }, job.transfer);
    }
  }

  private startWorker() {
    const worker = new Worker(/*turbopackIgnore: true*/ this.opts.script, {
      workerData: this.opts.workerData,
      resourceLimits: this.opts.resourceLimits,
    });
    const slot: Slot = { worker, ready: false };
    this.slots.push(slot);
    this.stats.started++;
    worker.on("message", (msg: WorkerReply) => {
      if ("ready" in msg) {
        slot.ready = true;
        this.everReady = true;
        this.failedStarts = 0;
      } else if (slot.job && slot.job.id === msg.id) {
        const job = slot.job;
        slot.job = undefined;
        this.stats.completed++;
        if ("error" in msg) job.reject(new Error(msg.error));
        else job.resolve(msg.result);
      }
      this.dispatch();
    });
    const onGone = (err: unknown) => {
      const i = this.slots.indexOf(slot);
      if (i === -1) return; // error and exit both fire for one death
      this.slots.splice(i, 1);
      if (this.closed) return;
      if (!slot.ready) this.onStartFailed(err);
      else this.onCrashed(slot, err);
    };
    worker.on("error", onGone);
    worker.on("exit", (code) => onGone(new Error(`exit code ${code}`)));
  }

  private onStartFailed(err: unknown) {
    this.stats.failedStarts++;
    const code = (err as { code?: unknown } | undefined)?.code;
    // Only the first start can prove the runtime unloadable; once a worker has run, a failed start is transient.
    if (!this.everReady && typeof code === "string" && RUNTIME_LOAD_ERRORS.has(code)) {
      this.startFailure = new WorkerStartError(`enhance worker failed to start: ${describe(err)}`, { cause: err });
      this.rejectWaiting(this.startFailure);
      return;
    }
    const backoff = this.opts.restartBackoffMs ?? DEFAULT_BACKOFF;
    const delay = Math.min(backoff.max, backoff.initial * 2 ** this.failedStarts);
    this.failedStarts++;
    this.restartAt = Date.now() + delay;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.closed && this.slots.length < this.opts.size) this.startWorker();
      this.dispatch();
    }, delay);
    this.restartTimer.unref();
    // With no worker left, waiting would only run into the deadline: callers get busy and a Retry-After instead.
    if (this.slots.length === 0) this.rejectWaiting(this.refusal());
  }

  private onCrashed(slot: Slot, err: unknown) {
    this.stats.crashed++;
    slot.job?.reject(new WorkerCrashError(`enhance worker died: ${describe(err)}`, { cause: err }));
    // The replacement starts when the next job needs it.
    this.dispatch();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
