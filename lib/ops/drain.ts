// Work in flight in this process (HTTP requests, async jobs), counted so that SIGTERM lets it finish before the
// process exits (server.ts), and a signal that stops what is still running once the grace is over. One per process,
// built by the composition root (createServices).
import { ShuttingDown } from "@/lib/errors";

export class Drain {
  private count = 0;
  private readonly waiters = new Set<() => void>();
  private readonly stopper = new AbortController();
  private drainingSince: number | null = null;

  /** Aborts, with ShuttingDown, when the grace is over: requests and jobs still running stop and are refunded. */
  readonly stopping: AbortSignal = this.stopper.signal;

  /** Counts `work` as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.count++;
    const done = () => {
      this.count--;
      if (this.count === 0) for (const wake of [...this.waiters]) wake();
    };
    work.then(done, done);
    return work;
  }

  inFlight(): number {
    return this.count;
  }

  /** From now on new requests are turned away (503 busy); what runs may finish. */
  begin(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Stops what is still running, through each one's own error path (refunds, releases, failed jobs). */
  stopRemaining(): void {
    this.stopper.abort(new ShuttingDown());
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
