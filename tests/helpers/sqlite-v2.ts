// A database file as 1.0 left it (schema version 2: quota windows, keys, the waitlist), for migration tests.
import path from "node:path";
import Database from "better-sqlite3";
import { DB_FILE } from "@/lib/store/sqlite/connection";

/** Writes 1.0's schema into `dataDir`, then `extraSql` (rows of that era). */
export function writeVersion2File(dataDir: string, extraSql = ""): void {
  const db = new Database(path.join(dataDir, DB_FILE));
  db.exec(`CREATE TABLE usage (bucket TEXT NOT NULL, identity TEXT NOT NULL, window_start INTEGER NOT NULL,
      used INTEGER NOT NULL, PRIMARY KEY (bucket, identity, window_start)) WITHOUT ROWID;
    CREATE INDEX usage_by_window ON usage (window_start);
    CREATE TABLE api_keys (id TEXT PRIMARY KEY, label TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, last4 TEXT NOT NULL,
      plan TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);
    CREATE TABLE waitlist (email TEXT PRIMARY KEY, use_case TEXT, created_at TEXT NOT NULL);
    ${extraSql}
    PRAGMA user_version = 2;`);
  db.close();
}
