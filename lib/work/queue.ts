// A bounded work queue: at most `concurrency` jobs run, at most `maxQueued` wait; beyond that callers get busy.
import { QueueFull } from "@/lib/errors";
import { trackQueue } from "@/lib/metrics";

type Waiter = {
  start: () => void;
  onAbort: () => void;
  signal?: AbortSignal;
  onPosition?: (position: number) => void;
};

export class WorkQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly name: string,
    readonly concurrency: number,
    readonly maxQueued: number,
  ) {
    // Scrapes read its depth and running work (lib/metrics).
    trackQueue(this);
  }

  get stats() {
    return { running: this.running, queued: this.waiting.length };
  }

  /**
   * Runs `job` when a slot is free. While it waits, `onPosition` hears its place in line (1 = next), each time
   * that changes; a job abandoned through `signal` while waiting never runs.
   */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal, onPosition?: (position: number) => void): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.concurrency) await this.wait(signal, onPosition);
    else this.running++;
    try {
      return await job();
    } finally {
      this.release();
    }
  }

  private wait(signal?: AbortSignal, onPosition?: (position: number) => void): Promise<void> {
    if (this.waiting.length >= this.maxQueued) throw new QueueFull();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        onPosition,
        start: () => {
          signal?.removeEventListener("abort", waiter.onAbort);
          resolve();
        },
        // A client that went away gives up its place; its job never runs.
        onAbort: () => {
          const i = this.waiting.indexOf(waiter);
          if (i !== -1) this.waiting.splice(i, 1);
          this.announcePositions(i);
          reject(signal?.reason ?? new Error("aborted"));
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
      onPosition?.(this.waiting.length);
    });
  }

  private release() {
    const next = this.waiting.shift();
    if (next) {
      next.start(); // the slot passes straight to the next job
      this.announcePositions(0);
    } else {
      this.running--;
    }
  }

  /** Tells every waiter from index `from` on its new place in line. */
  private announcePositions(from: number) {
    for (let i = Math.max(0, from); i < this.waiting.length; i++) this.waiting[i].onPosition?.(i + 1);
  }
}
