// Sliding-window attempt counters on the embedded SQLite file, in the quota table: a take reads the current and the
// previous fixed window and counts one in the current window, in one IMMEDIATE transaction, so it is atomic across
// requests and processes. Old windows go with the quota table's pruning.
import type Database from "better-sqlite3";
import { type SlidingWindowCounter, slidingCount } from "@/lib/quota/sliding";
import { type Bucket, type Take, windowStartOf } from "@/lib/quota/types";
import type { SqliteConnection } from "./connection";

function prepare(db: Database.Database) {
  return {
    used: db.prepare<[string, string, number], { used: number }>(
      "SELECT used FROM usage WHERE bucket = ? AND identity = ? AND window_start = ?",
    ),
    increment: db.prepare<[string, string, number]>(
      `INSERT INTO usage (bucket, identity, window_start, used) VALUES (?, ?, ?, 1)
       ON CONFLICT (bucket, identity, window_start) DO UPDATE SET used = used + 1`,
    ),
    decrement: db.prepare<[string, string, number]>(
      "UPDATE usage SET used = used - 1 WHERE bucket = ? AND identity = ? AND window_start = ? AND used > 0",
    ),
  };
}

export function openSqliteSlidingWindow(conn: SqliteConnection): SlidingWindowCounter {
  const { db } = conn;
  let statements: ReturnType<typeof prepare> | undefined;
  return {
    async take(bucket: Bucket, id: string, now = Date.now()): Promise<Take> {
      const start = windowStartOf(bucket, now);
      const name = `sw:${bucket.name}`;
      return conn.transaction("sliding take", () => {
        statements ??= prepare(db);
        const s = statements;
        const current = s.used.get(name, id, start)?.used ?? 0;
        const previous = s.used.get(name, id, start - bucket.windowMs)?.used ?? 0;
        const counted = slidingCount(bucket, now, current, previous);
        const ok = counted < bucket.limit;
        if (ok) s.increment.run(name, id, start);
        const used = Math.min(bucket.limit, counted + (ok ? 1 : 0));
        return {
          ok,
          limit: bucket.limit,
          used,
          remaining: bucket.limit - used,
          // Refused attempts may pass again once the weighted previous window has slid out far enough; the end of
          // the current window is a safe upper bound.
          resetMs: start + bucket.windowMs,
          windowStart: start,
        };
      });
    },
    async refund(bucket, id, taken) {
      if (!taken.ok) return;
      await conn.transaction("sliding refund", () => {
        statements ??= prepare(db);
        statements.decrement.run(`sw:${bucket.name}`, id, taken.windowStart);
      });
    },
  };
}
