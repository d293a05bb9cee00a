// A bounded work queue: at most `concurrency` jobs run, at most `maxQueued` wait; beyond that callers get busy.
import { QueueFull } from "@/lib/errors";

type Waiter = { start: () => void; onAbort: () => void; signal?: AbortSignal };

export class WorkQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly name: string,
    private readonly concurrency: number,
    private readonly maxQueued: number,
  ) {}

  get stats() {
    return { running: this.running, queued: this.waiting.length };
  }

  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.concurrency) await this.wait(signal);
    else this.running++;
    try {
      return await job();
    } finally {
      this.release();
    }
  }

  private wait(signal?: AbortSignal): Promise<void> {
    if (this.waiting.length >= this.maxQueued) {
      throw new QueueFull();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        start: () => {
          signal?.removeEventListener("abort", waiter.onAbort);
          resolve();
        },
        // A client that went away gives up its place; its job never runs.
        onAbort: () => {
          const i = this.waiting.indexOf(waiter);
          if (i !== -1) this.waiting.splice(i, 1);
          reject(signal?.reason ?? new Error("aborted"));
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release() {
    const next = this.waiting.shift();
    if (next)
      next.start(); // the slot passes straight to the next job
    else this.running--;
  }
}
