// One connection to the embedded database file. Setting it up (WAL, the schema migrations, the prepared statements)
// happens on first use, inside the lock retry, so a lock held elsewhere at start is waited for like any other.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { BUSY_TIMEOUT_MS, type RetryOptions, retryLocked } from "./sqlite-retry";
import { migrate } from "./sqlite-schema";

export const DB_FILE = "darkroom.db";

export type SqliteFile<S> = {
  db: Database.Database;
  /** Runs `fn` with the prepared statements; it must be safe to repeat (a locked attempt changed nothing). */
  run<T>(what: string, fn: (statements: S) => T, deadlineMs?: number): Promise<T>;
};

export function openSqliteFile<S>(
  dataDir: string,
  label: string,
  prepare: (db: Database.Database) => S,
  opts: RetryOptions = {},
): SqliteFile<S> {
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
