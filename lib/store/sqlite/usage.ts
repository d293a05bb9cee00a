// Usage history on the embedded SQLite file: one upsert per request adds 1 to its day's counter, so counts stay
// exact across parallel requests and processes. Days older than the retention are pruned in the background.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type Database from "better-sqlite3";
import { describeError, log } from "@/lib/log";
import { DAY_MS } from "@/lib/quota/types";
import { cleanDimension, type KeyDayTotal, type UsageHistory, type UsageRow, utcDate } from "@/lib/usage/history";
import type { SqliteConnection } from "./connection";

const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * A key's last use is written at most this often by one process: to the minute is enough for the console, and
 * most requests then commit one row instead of two.
 */
const LAST_USED_EVERY_MS = 60_000;

function prepare(db: Database.Database) {
  return {
    add: db.prepare<[string, string, string, string, string, string, string]>(
      `INSERT INTO usage_daily (day, key_id, plan, endpoint, model, engine, outcome, count)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT DO UPDATE SET count = count + 1`,
    ),
    touchKey: db.prepare<[string, string]>(
      "UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, ''), ?) WHERE id = ?",
    ),
    read: db.prepare<[string, string], UsageRow & { date: string }>(
      `SELECT day AS date, plan, endpoint, model, engine, outcome, sum(count) AS count FROM usage_daily
       WHERE day BETWEEN ? AND ? GROUP BY day, plan, endpoint, model, engine, outcome ORDER BY day`,
    ),
    readKey: db.prepare<[string, string, string], UsageRow>(
      `SELECT day AS date, plan, endpoint, model, engine, outcome, count FROM usage_daily
       WHERE key_id = ? AND day BETWEEN ? AND ? ORDER BY day`,
    ),
    keyTotals: db.prepare<[string, string], KeyDayTotal>(
      `SELECT key_id AS keyId, day AS date, sum(count) AS succeeded FROM usage_daily
       WHERE day BETWEEN ? AND ? AND key_id <> '' AND outcome = 'succeeded' GROUP BY key_id, day`,
    ),
    lastUsed: db.prepare<[], { id: string; last_used_at: string }>(
      "SELECT id, last_used_at FROM api_keys WHERE last_used_at IS NOT NULL",
    ),
    prune: db.prepare<[string]>("DELETE FROM usage_daily WHERE day < ?"),
  };
}

export function openSqliteUsageHistory(
  conn: SqliteConnection,
  opts: { keepDays: number },
): UsageHistory & { prune(now?: number): Promise<number> } {
  const { db, run } = conn.statements("sqlite usage history", prepare);
  let nextPruneAt = 0;
  let closed = false;
  let pruning: Promise<unknown> | undefined;
  const lastUsedWritten = new Map<string, number>();

  const prune = async (now = Date.now()) => {
    const cutoff = utcDate(now - (opts.keepDays - 1) * DAY_MS);
    return (await run("prune usage history", (s) => s.prune.run(cutoff))).changes;
  };
  const startPrune = () => {
    const now = Date.now();
    if (closed || pruning || now < nextPruneAt) return;
    nextPruneAt = now + PRUNE_EVERY_MS;
    // After the current request's answer; a failed prune is retried an interval later, nothing depends on it.
    pruning = yieldToLoop()
      .then(() => (closed ? 0 : prune(now)))
      .catch((err: unknown) => log.warn("sqlite: pruning the usage history failed", describeError(err)))
      .finally(() => {
        pruning = undefined;
      });
  };

  return {
    async record(e) {
      const values = [e.plan, e.endpoint, cleanDimension(e.model), cleanDimension(e.engine), e.outcome] as const;
      const at = new Date(e.at).toISOString();
      const keyId = e.keyId;
      const touch = keyId !== null && e.at - (lastUsedWritten.get(keyId) ?? 0) >= LAST_USED_EVERY_MS;
      if (!keyId || !touch) await run("record usage", (s) => s.add.run(utcDate(e.at), keyId ?? "", ...values));
      // Two statements in one transaction, so a locked attempt retried never counts twice.
      else {
        lastUsedWritten.set(keyId, e.at);
        if (lastUsedWritten.size > 10_000) lastUsedWritten.delete(lastUsedWritten.keys().next().value as string);
        await run("record usage", (s) =>
          db
            .transaction(() => {
              s.add.run(utcDate(e.at), keyId, ...values);
              s.touchKey.run(at, keyId);
            })
            .immediate(),
        );
      }
      startPrune();
    },
    async read(from, to) {
      return run("read usage", (s) => s.read.all(from, to));
    },
    async readKey(keyId, from, to) {
      return run("read key usage", (s) => s.readKey.all(keyId, from, to));
    },
    async keyTotals(from, to) {
      return run("read key totals", (s) => s.keyTotals.all(from, to));
    },
    async lastUsed() {
      const rows = await run("read last use", (s) => s.lastUsed.all());
      return new Map(rows.map((r) => [r.id, r.last_used_at]));
    },
    prune,
    async close() {
      closed = true;
      await pruning;
    },
  };
}
