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
  // 3: async jobs (the record as JSON, with the columns the sweeps search on) and Idempotency-Key answers.
  `CREATE TABLE IF NOT EXISTS jobs (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     lease_until INTEGER NOT NULL,
     finished_ms INTEGER,
     data TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS jobs_active_by_lease ON jobs (lease_until) WHERE finished_ms IS NULL;
   CREATE INDEX IF NOT EXISTS jobs_by_finished ON jobs (finished_ms) WHERE finished_ms IS NOT NULL;
   CREATE TABLE IF NOT EXISTS idempotency (
     key TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     response TEXT,
     expires_ms INTEGER NOT NULL
   );`,
  // 4: the webhook outbox; workers claim due deliveries through the next_attempt_at index.
  `CREATE TABLE webhook_deliveries (
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
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);`,
  // 5: the operators' console. Keys gain who they were issued to, their own daily limit, a webhook signing secret
  // and when they were last used; waitlist entries gain an id (also for rows added by older code, through the
  // trigger) and a status; daily usage aggregates and the audit log get their tables.
  `ALTER TABLE api_keys ADD COLUMN email TEXT;
   ALTER TABLE api_keys ADD COLUMN daily_limit INTEGER;
   ALTER TABLE api_keys ADD COLUMN webhook_secret TEXT;
   ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
   ALTER TABLE waitlist ADD COLUMN id TEXT;
   ALTER TABLE waitlist ADD COLUMN status TEXT NOT NULL DEFAULT 'pending';
   ALTER TABLE waitlist ADD COLUMN key_id TEXT;
   ALTER TABLE waitlist ADD COLUMN decided_at TEXT;
   UPDATE waitlist SET id = 'wl_' || lower(hex(randomblob(8))) WHERE id IS NULL;
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
   );`,
  // 6: image records (lib/store/sqlite/images.ts). lease_until is null while a record is live; a claimed record
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
  // 7: an edited image's library source (image_id), so a record says which of the owner's images it came from.
  "ALTER TABLE images ADD COLUMN source_image_id TEXT;",
  // 8: the console's sign-in sessions, kept server-side so signing out ends them (lib/console/sessions.ts); and
  // the waitlist found by status and in signup order without a scan of the whole table.
  `CREATE TABLE admin_sessions (
     id TEXT PRIMARY KEY,
     token_digest TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     ip TEXT
   );
   CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
   CREATE INDEX waitlist_by_status ON waitlist (status, created_at, email);
   CREATE INDEX waitlist_by_created ON waitlist (created_at, email);`,
  // 9: fair webhook claims: each delivery's key (tenant) and destination host, so a claim can cap what is in
  // flight per key and per host. Deliveries queued by older code have neither and share one empty key and host.
  `ALTER TABLE webhook_deliveries ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
   ALTER TABLE webhook_deliveries ADD COLUMN host TEXT NOT NULL DEFAULT '';
   CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (next_attempt_at) WHERE lease IS NOT NULL;`,
  // 10: a running Idempotency-Key claim holds a lease (renewed while its request runs) under its own token, and
  // records the units of quota it holds, so that once its process dies the claim is taken over and they are given
  // back. Claims written before have lease 0: lapsed, so a key a crash left behind is free again.
  `ALTER TABLE idempotency ADD COLUMN token TEXT;
   ALTER TABLE idempotency ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE idempotency ADD COLUMN units TEXT;
   CREATE INDEX idempotency_running_by_lease ON idempotency (lease_until) WHERE response IS NULL;`,
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
