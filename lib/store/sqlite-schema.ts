// The SQLite schema as numbered migrations, tracked in `PRAGMA user_version`. Files written before versioning
// (user_version 0) already hold the version 1 tables, which is why version 1 uses IF NOT EXISTS.
import type Database from "better-sqlite3";

const MIGRATIONS: readonly string[] = [
  // 1: quota windows, Pro keys, the waitlist.
  `CREATE TABLE IF NOT EXISTS usage (
     bucket TEXT NOT NULL,
     identity TEXT NOT NULL,
     window_start INTEGER NOT NULL,
     used INTEGER NOT NULL,
     PRIMARY KEY (bucket, identity, window_start)
   ) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS api_keys (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     last4 TEXT NOT NULL,
     plan TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE TABLE IF NOT EXISTS waitlist (
     email TEXT PRIMARY KEY,
     use_case TEXT,
     created_at TEXT NOT NULL
   );`,
  // 2: pruning finds expired windows through an index; window_start is last in the primary key, so without it
  // every prune scanned the whole table.
  "CREATE INDEX IF NOT EXISTS usage_by_window ON usage (window_start);",
  // 3: image records (lib/store/images-sqlite.ts). lease_until is null while a record is live; a claimed record
  // keeps it until it is finished or its lease runs out. Listing, sweeping and claiming each have their index.
  `CREATE TABLE IF NOT EXISTS images (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     kind TEXT NOT NULL,
     url TEXT NOT NULL,
     params TEXT NOT NULL,
     width INTEGER NOT NULL,
     height INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     token_hash TEXT NOT NULL,
     lease_until INTEGER,
     lease_id TEXT
   );
   CREATE INDEX IF NOT EXISTS images_by_owner ON images (owner, created_at, id);
   CREATE INDEX IF NOT EXISTS images_by_expiry ON images (expires_at) WHERE lease_until IS NULL;
   CREATE INDEX IF NOT EXISTS images_by_created ON images (created_at) WHERE lease_until IS NULL;
   CREATE INDEX IF NOT EXISTS images_by_lease ON images (lease_until) WHERE lease_until IS NOT NULL;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the file up to SCHEMA_VERSION; safe when several processes open the same file at once. */
export function migrate(db: Database.Database): void {
  const current = () => db.pragma("user_version", { simple: true }) as number;
  if (current() >= SCHEMA_VERSION) return;
  // IMMEDIATE takes the write lock first, so two processes can't both read the old version and migrate twice.
  db.transaction(() => {
    const from = current();
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    if (from < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
