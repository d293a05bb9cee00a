// A connection of its own to the embedded database file, for the stores beside the core one (console, usage
// history). Set up on first use, migrated like the core store's, and run through retryLocked: a lock held by another
// process is waited for with timers, never on the event loop.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { DB_FILE } from "./sqlite";
import { BUSY_TIMEOUT_MS, type RetryOptions, retryLocked } from "./sqlite-retry";
import { migrate } from "./sqlite-schema";

export type SqliteConnection<S> = {
  db: Database.Database;
  /** Runs `fn` with the prepared statements; it must be safe to repeat (a locked attempt changed nothing). */
  run<T>(what: string, fn: (statements: S) => T, deadlineMs?: number): Promise<T>;
};

export function openSqliteConnection<S>(
  dataDir: string,
  label: string,
  prepare: (db: Database.Database) => S,
  opts: RetryOptions = {},
): SqliteConnection<S> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, DB_FILE));
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  let statements: S | undefined;
  const setUp = (): S => {
    if (statements) return statements;
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    migrate(db);
    statements = prepare(db);
    return statements;
  };
  return {
    db,
    run: (what, fn, deadlineMs = opts.deadlineMs) =>
      retryLocked(`${label}: ${what}`, () => fn(setUp()), { deadlineMs }),
  };
}
