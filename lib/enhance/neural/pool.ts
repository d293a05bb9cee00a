// A fixed-size pool of worker threads with a FIFO of jobs: started lazily, kept, and replaced when one crashes.
import { type Transferable, Worker } from "node:worker_threads";
import type { WorkerReply } from "./protocol";

type Job = {
  id: number;
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
};

/** A worker failed before it was ready: the runtime itself cannot load, so retrying per request is pointless. */
export class WorkerStartError extends Error {
  override name = "WorkerStartError";
}

export class WorkerCrashError extends Error {
  override name = "WorkerCrashError";
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Set once a worker fails to start; every later run rejects with it. */
  startFailure?: WorkerStartError;
  /** Jobs each worker has finished, crashes and replacements: for tests and logs. */
  readonly stats = { completed: 0, crashed: 0, started: 0 };

  constructor(private readonly opts: PoolOptions) {}

  get size() {
    return this.opts.size;
  }

  /** Runs a job on the next free worker; a job still waiting when `signal` aborts is dropped and never runs. */
  run<T>(task: unknown, opts: { transfer?: Transferable[]; signal?: AbortSignal } = {}): Promise<T> {
    if (this.startFailure) return Promise.reject(this.startFailure);
    if (this.closed) return Promise.reject(new Error("worker pool closed"));
    opts.signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        task,
        transfer: opts.transfer ?? [],
        resolve: resolve as (v: unknown) => void,
        reject,
        signal: opts.signal,
      };
      if (job.signal) {
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i === -1) return; // already running: it finishes, its result is just not used
          this.queue.splice(i, 1);
          reject(job.signal!.reason);
        };
        job.signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error("worker pool closed"));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch() {
    while (this.queue.length > 0) {
      const idle = this.slots.find((s) => s.ready && !s.job);
      if (!idle) {
        // Start workers lazily, one per waiting job, up to the pool size.
        const starting = this.slots.filter((s) => !s.ready).length;
        if (this.slots.length < this.opts.size && starting < this.queue.length) this.startWorker();
        return;
      }
      const job = this.queue.shift()!;
      job.signal?.removeEventListener("abort", job.onAbort!);
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
      if (!slot.ready) {
        this.startFailure = new WorkerStartError(
          `enhance worker failed to start: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
        for (const job of this.queue.splice(0)) job.reject(this.startFailure);
        return;
      }
      this.stats.crashed++;
      slot.job?.reject(
        new WorkerCrashError(`enhance worker died: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        }),
      );
      // The replacement starts when the next job needs it.
      this.dispatch();
    };
    worker.on("error", onGone);
    worker.on("exit", (code) => onGone(new Error(`exit code ${code}`)));
  }
}
