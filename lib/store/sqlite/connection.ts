// The one connection to the embedded database file. Setting it up (WAL, the schema migrations) happens on first use,
// inside the lock retry, so a lock held elsewhere at start is waited for like any other. Every repository of the
// SQLite backend prepares its statements on this connection, so they can share a transaction.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { BUSY_TIMEOUT_MS, type RetryOptions, retryLocked } from "./retry";
import { migrate } from "./schema";

export const DB_FILE = "darkroom.db";

export type SqliteFile<S> = {
  db: Database.Database;
  /** Runs `fn` with the prepared statements; it must be safe to repeat (a locked attempt changed nothing). */
  run<T>(what: string, fn: (statements: S) => T, deadlineMs?: number): Promise<T>;
};

export type SqliteConnection = {
  db: Database.Database;
  /** The repository `label`'s statements on this connection, prepared on first use. */
  statements<S>(label: string, prepare: (db: Database.Database) => S): SqliteFile<S>;
  /** Runs `fn` in one IMMEDIATE transaction: all of it or nothing, retried while the file is locked elsewhere. */
  transaction<T>(what: string, fn: () => T): Promise<T>;
  close(): void;
};

export function openSqliteConnection(dataDir: string, opts: RetryOptions = {}): SqliteConnection {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, DB_FILE));
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  let ready = false;
  const setUp = () => {
    if (ready) return;
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    migrate(db);
    ready = true;
  };
  return {
    db,
    statements<S>(label: string, prepare: (db: Database.Database) => S): SqliteFile<S> {
      let statements: S | undefined;
      const prepared = (): S => {
        setUp();
        statements ??= prepare(db);
        return statements;
      };
      return {
        db,
        run: (what, fn, deadlineMs = opts.deadlineMs) =>
          retryLocked(`${label}: ${what}`, () => fn(prepared()), { deadlineMs }),
      };
    },
    transaction: (what, fn) =>
      retryLocked(
        `sqlite: ${what}`,
        () => {
          setUp();
          return db.transaction(fn).immediate();
        },
        { deadlineMs: opts.deadlineMs },
      ),
    close: () => db.close(),
  };
}
