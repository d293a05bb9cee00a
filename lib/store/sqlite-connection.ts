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
  /** Each call must be safe to repeat: a locked attempt changed nothing, and is run again. */
  run<T>(what: string, fn: (statements: S, db: Database.Database) => T): Promise<T>;
  close(): void;
};

export function openSqliteConnection<S>(
  dataDir: string,
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
    run: (what, fn) => retryLocked(what, () => fn(setUp(), db), { deadlineMs: opts.deadlineMs }),
    close: () => db.close(),
  };
}
