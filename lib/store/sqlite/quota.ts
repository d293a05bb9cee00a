// Quota counters on the embedded SQLite file (better-sqlite3). Every quota change is one atomic statement (an upsert with
// RETURNING), so counts stay exact across parallel requests and across processes sharing the file; a take of several
// units is one statement too.
//
// better-sqlite3 is synchronous: a statement that waits for a lock waits on the event loop. So SQLite's own busy
// wait is off, and a lock held elsewhere (another server instance, the keys CLI) is waited for with timers in
// retryLocked; past its deadline the store is unavailable (503 busy), never a stalled server.

import { setImmediate as yieldToLoop } from "node:timers/promises";
import type Database from "better-sqlite3";
import { StoreUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { type Bucket, DAY_MS, type QuotaCounters, type Take, type Usage, windowStartOf } from "@/lib/quota/types";
import type { SqliteConnection } from "./connection";

/** Deletes one bounded batch of expired windows, found through the window_start index. */
export const PRUNE_SQL = `DELETE FROM usage WHERE (bucket, identity, window_start) IN
  (SELECT bucket, identity, window_start FROM usage WHERE window_start < ? LIMIT ?)`;

export type SqliteQuotaOptions = {
  /**
   * Most expired rows one prune statement deletes; between batches the event loop runs.
   * @default 500
   */
  pruneBatch?: number;
  /**
   * How often a take starts a prune of expired windows (in the background, not in the request).
   * @default 3_600_000
   */
  pruneEveryMs?: number;
};

export type SqliteQuota = QuotaCounters & {
  /** Deletes the windows that started more than two days before `now`; returns how many rows went. */
  pruneExpired(now?: number): Promise<number>;
  /** Cheap health probe: false when the file stays locked or cannot be read. */
  ping(): Promise<boolean>;
  /** Stops pruning (the connection is the backend's). */
  close(): Promise<void>;
};

function prepareStatements(db: Database.Database) {
  return {
    selectUsed: db.prepare<[string, string, number], { used: number }>(
      "SELECT used FROM usage WHERE bucket = ? AND identity = ? AND window_start = ?",
    ),
    // One statement is atomic on its own: it takes the units and returns the new count, or nothing when too few are
    // left. The caller never asks for more than the limit, so a first take cannot start above it.
    incrementUsed: db.prepare<
      { bucket: string; id: string; start: number; units: number; limit: number },
      { used: number }
    >(
      `INSERT INTO usage (bucket, identity, window_start, used) VALUES (@bucket, @id, @start, @units)
       ON CONFLICT (bucket, identity, window_start) DO UPDATE SET used = used + @units WHERE used + @units <= @limit
       RETURNING used`,
    ),
    decrementUsed: db.prepare<[string, string, number]>(
      "UPDATE usage SET used = used - 1 WHERE bucket = ? AND identity = ? AND window_start = ? AND used > 0",
    ),
    pruneBatch: db.prepare<[number, number]>(PRUNE_SQL),
    ping: db.prepare("SELECT 1"),
  };
}

export function openSqliteQuota(conn: SqliteConnection, opts: SqliteQuotaOptions = {}): SqliteQuota {
  const pruneBatch = opts.pruneBatch ?? 500;
  const pruneEveryMs = opts.pruneEveryMs ?? 60 * 60 * 1000;
  const { run } = conn.statements("sqlite", prepareStatements);

  const usageOf = (bucket: Bucket, used: number, start: number): Usage => ({
    limit: bucket.limit,
    used: Math.min(used, bucket.limit),
    remaining: Math.max(0, bucket.limit - used),
    resetMs: start + bucket.windowMs,
  });

  let closed = false;
  let nextPruneAt = 0;
  let pruning: Promise<void> | undefined;

  const pruneExpired = async (now = Date.now()): Promise<number> => {
    // Windows older than two days can never be read again.
    const cutoff = now - 2 * DAY_MS;
    let deleted = 0;
    while (!closed) {
      const { changes } = await run("prune", (s) => s.pruneBatch.run(cutoff, pruneBatch));
      deleted += changes;
      if (changes < pruneBatch) break;
      await yieldToLoop();
    }
    return deleted;
  };

  const startPrune = (now: number) => {
    if (pruning || closed || now < nextPruneAt) return;
    nextPruneAt = now + pruneEveryMs;
    // After the current request's continuation, so its answer doesn't wait for the first batch.
    pruning = yieldToLoop()
      .then(() => pruneExpired(now))
      .then(
        () => undefined,
        (err: unknown) => {
          // Best effort: the next take past the interval tries again; nothing depends on old rows being gone.
          // Anything but an outage is a bug, and is logged as one.
          const report = err instanceof StoreUnavailable ? log.warn : log.error;
          report("sqlite: pruning expired windows failed", describeError(err));
        },
      )
      .finally(() => {
        pruning = undefined;
      });
  };

  return {
    async take(bucket, id, now = Date.now(), units = 1): Promise<Take> {
      const start = windowStartOf(bucket, now);
      // Two calls, not one attempt: retrying the read must never repeat the increment.
      const taken =
        units >= 1 && units <= bucket.limit
          ? await run("take", (s) =>
              s.incrementUsed.get({ bucket: bucket.name, id, start, units, limit: bucket.limit }),
            )
          : undefined;
      const used = taken?.used ?? (await run("take", (s) => s.selectUsed.get(bucket.name, id, start)))?.used ?? 0;
      startPrune(now);
      return { ...usageOf(bucket, used, start), ok: taken !== undefined, windowStart: start };
    },
    async refund(bucket, id, windowStart) {
      await run("refund", (s) => s.decrementUsed.run(bucket.name, id, windowStart));
    },
    async peek(bucket, id, now = Date.now()) {
      const start = windowStartOf(bucket, now);
      const row = await run("peek", (s) => s.selectUsed.get(bucket.name, id, start));
      return usageOf(bucket, row?.used ?? 0, start);
    },
    pruneExpired,
    async ping() {
      try {
        // A probe answers quickly: a store locked for longer than this counts as down.
        await run("ping", (s) => s.ping.get(), 250);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      await pruning;
    },
  };
}
