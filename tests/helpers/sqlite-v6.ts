// A database file as 1.1 left it (schema version 6: quotas, keys with their 1.1 fields, the waitlist with ids and
// decisions, jobs, idempotency answers, the webhook outbox, usage history, the audit log, image records), captured
// from 1.1's migrations, for upgrade tests.
import path from "node:path";
import Database from "better-sqlite3";
import { DB_FILE } from "@/lib/store/sqlite/connection";

/** Writes 1.1's schema into `dataDir`, then `extraSql` (rows of that era). */
export function writeVersion6File(dataDir: string, extraSql = ""): void {
  const db = new Database(path.join(dataDir, DB_FILE));
  db.exec(`
    CREATE TABLE usage (
         bucket TEXT NOT NULL,
         identity TEXT NOT NULL,
         window_start INTEGER NOT NULL,
         used INTEGER NOT NULL,
         PRIMARY KEY (bucket, identity, window_start)
       ) WITHOUT ROWID;
    CREATE TABLE api_keys (
         id TEXT PRIMARY KEY,
         label TEXT NOT NULL,
         hash TEXT NOT NULL UNIQUE,
         last4 TEXT NOT NULL,
         plan TEXT NOT NULL,
         created_at TEXT NOT NULL,
         revoked_at TEXT
       , email TEXT, daily_limit INTEGER, webhook_secret TEXT, last_used_at TEXT);
    CREATE TABLE waitlist (
         email TEXT PRIMARY KEY,
         use_case TEXT,
         created_at TEXT NOT NULL
       , id TEXT, status TEXT NOT NULL DEFAULT 'pending', key_id TEXT, decided_at TEXT);
    CREATE INDEX usage_by_window ON usage (window_start);
    CREATE TABLE jobs (
         id TEXT PRIMARY KEY,
         status TEXT NOT NULL,
         lease_until INTEGER NOT NULL,
         finished_ms INTEGER,
         data TEXT NOT NULL
       );
    CREATE INDEX jobs_active_by_lease ON jobs (lease_until) WHERE finished_ms IS NULL;
    CREATE INDEX jobs_by_finished ON jobs (finished_ms) WHERE finished_ms IS NOT NULL;
    CREATE TABLE idempotency (
         key TEXT PRIMARY KEY,
         fingerprint TEXT NOT NULL,
         response TEXT,
         expires_ms INTEGER NOT NULL
       );
    CREATE TABLE webhook_deliveries (
         id TEXT PRIMARY KEY,
         job_id TEXT NOT NULL,
         url TEXT NOT NULL,
         secret TEXT NOT NULL,
         body TEXT NOT NULL,
         attempts INTEGER NOT NULL DEFAULT 0,
         last_status INTEGER,
         next_attempt_at INTEGER NOT NULL,
         lease TEXT,
         created_at INTEGER NOT NULL
       );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
    CREATE UNIQUE INDEX waitlist_by_id ON waitlist (id);
    CREATE TRIGGER waitlist_gets_an_id AFTER INSERT ON waitlist FOR EACH ROW WHEN NEW.id IS NULL
       BEGIN
         UPDATE waitlist SET id = 'wl_' || lower(hex(randomblob(8))) WHERE rowid = NEW.rowid;
       END;
    CREATE TABLE usage_daily (
         day TEXT NOT NULL,
         key_id TEXT NOT NULL,
         plan TEXT NOT NULL,
         endpoint TEXT NOT NULL,
         model TEXT NOT NULL,
         engine TEXT NOT NULL,
         outcome TEXT NOT NULL,
         count INTEGER NOT NULL,
         PRIMARY KEY (day, key_id, plan, endpoint, model, engine, outcome)
       ) WITHOUT ROWID;
    CREATE INDEX usage_daily_by_key ON usage_daily (key_id, day);
    CREATE TABLE audit_log (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         at TEXT NOT NULL,
         action TEXT NOT NULL,
         target TEXT NOT NULL,
         ip TEXT,
         actor TEXT NOT NULL,
         detail TEXT
       );
    CREATE TABLE images (
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
    CREATE INDEX images_by_owner ON images (owner, created_at, id);
    CREATE INDEX images_by_expiry ON images (expires_at) WHERE lease_until IS NULL;
    CREATE INDEX images_by_created ON images (created_at) WHERE lease_until IS NULL;
    CREATE INDEX images_by_lease ON images (lease_until) WHERE lease_until IS NOT NULL;
    ${extraSql}
    PRAGMA user_version = 6;`);
  db.close();
}
