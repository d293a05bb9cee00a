// Runs synchronous better-sqlite3 work without ever holding the event loop while another connection has the lock.
// SQLite's own busy handler sleeps inside the call, on the one thread; a locked database is retried here with
// timers instead, so other requests keep being served, until a deadline.

import { setTimeout as sleep } from "node:timers/promises";
import { StoreUnavailable } from "@/lib/errors";

/**
 * Milliseconds SQLite may block the thread on one attempt (its `busy_timeout`). None: every request waiting on a
 * lock pays this on every attempt, so even 5 ms held the loop for over a second with 200 waiters. A lock held only
 * briefly costs a 1 ms timer instead.
 */
export const BUSY_TIMEOUT_MS = 0;

export type RetryOptions = {
  /**
   * How long one operation may wait for a lock held elsewhere before it fails with StoreUnavailable.
   * @default 2000
   */
  deadlineMs?: number;
};

// Another connection holds the lock, or ours is in the way of itself: worth another attempt.
const LOCKED = /^SQLITE_(BUSY|LOCKED)(_|$)/;
// The file cannot be read or written now (disk full, I/O error, permissions, a damaged file): an outage to report,
// not a bug to hide, and waiting a moment will not fix it.
const OUTAGE = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY|PROTOCOL|NOLFS|CORRUPT|NOTADB)(_|$)/;

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

export function isLocked(err: unknown): boolean {
  return LOCKED.test(sqliteCode(err) ?? "");
}

export function isOutage(err: unknown): boolean {
  return OUTAGE.test(sqliteCode(err) ?? "");
}

/**
 * Calls `attempt` until it returns, yielding to the event loop between attempts with a growing, jittered delay.
 * Lock errors past the deadline and outage errors become StoreUnavailable; any other error (a constraint, a bug
 * in SQL) is thrown as it is. `onLocked` runs after each locked attempt, to undo a transaction left open.
 */
export async function retryLocked<T>(
  what: string,
  attempt: () => T,
  opts: RetryOptions & { onLocked?: () => void } = {},
): Promise<T> {
  const deadline = performance.now() + (opts.deadlineMs ?? 2000);
  let delay = 1;
  for (;;) {
    try {
      return attempt();
    } catch (err) {
      if (isOutage(err)) throw new StoreUnavailable(`sqlite: ${what} failed: ${sqliteCode(err)}`, { cause: err });
      if (!isLocked(err)) throw err;
      opts.onLocked?.();
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new StoreUnavailable(`sqlite: ${what}: the database stayed locked for ${opts.deadlineMs ?? 2000} ms`, {
          cause: err,
        });
      }
      // Jitter, so several processes waiting on one lock don't retry in step.
      await sleep(Math.min(left, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 2, 50);
    }
  }
}
