// Embedded store on SQLite (better-sqlite3). Every quota change is one atomic statement (an upsert with
// RETURNING), so counts stay exact across parallel requests and across processes sharing the file.

import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  type Bucket,
  DAY_MS,
  type KeyRecord,
  type Store,
  type Take,
  type Usage,
  type WaitlistEntry,
  windowStartOf,
} from "./types";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS usage (
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
);
`;

type KeyRow = {
  id: string;
  label: string;
  hash: string;
  last4: string;
  plan: "pro";
  created_at: string;
  revoked_at: string | null;
};

function toKey(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    label: row.label,
    hash: row.hash,
    last4: row.last4,
    plan: row.plan,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export function openSqliteStore(dataDir: string): Store {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, "darkroom.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  // Several server instances and the keys CLI may share the file; wait for the write lock instead of failing.
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);

  const selectUsed = db.prepare<[string, string, number], { used: number }>(
    "SELECT used FROM usage WHERE bucket = ? AND identity = ? AND window_start = ?",
  );
  // One statement is atomic on its own: it takes the unit and returns the new count, or returns nothing when full.
  const incrementUsed = db.prepare<[string, string, number, number], { used: number }>(
    `INSERT INTO usage (bucket, identity, window_start, used) VALUES (?, ?, ?, 1)
     ON CONFLICT (bucket, identity, window_start) DO UPDATE SET used = used + 1 WHERE used < ?
     RETURNING used`,
  );
  const decrementUsed = db.prepare<[string, string, number]>(
    "UPDATE usage SET used = used - 1 WHERE bucket = ? AND identity = ? AND window_start = ? AND used > 0",
  );
  const pruneOld = db.prepare<[number]>("DELETE FROM usage WHERE window_start < ?");
  // Every Pro request looks its key up, so that statement is prepared once rather than per call.
  const selectKeyByHash = db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE hash = ?");

  const usageOf = (bucket: Bucket, used: number, start: number): Usage => ({
    limit: bucket.limit,
    used: Math.min(used, bucket.limit),
    remaining: Math.max(0, bucket.limit - used),
    resetMs: start + bucket.windowMs,
  });

  const takeUnit = (bucket: Bucket, id: string, start: number): Take => {
    const taken = bucket.limit > 0 ? incrementUsed.get(bucket.name, id, start, bucket.limit) : undefined;
    const used = taken?.used ?? selectUsed.get(bucket.name, id, start)?.used ?? 0;
    return { ...usageOf(bucket, used, start), ok: taken !== undefined, windowStart: start };
  };

  let lastPrune = 0;
  const pruneEveryMs = 60 * 60 * 1000;

  return {
    kind: "sqlite",
    async take(bucket, id, now = Date.now()) {
      const start = windowStartOf(bucket, now);
      if (now - lastPrune > pruneEveryMs) {
        lastPrune = now;
        // Windows older than two days can never be read again.
        pruneOld.run(now - 2 * DAY_MS);
      }
      return takeUnit(bucket, id, start);
    },
    async refund(bucket, id, windowStart) {
      decrementUsed.run(bucket.name, id, windowStart);
    },
    async peek(bucket, id, now = Date.now()) {
      const start = windowStartOf(bucket, now);
      return usageOf(bucket, selectUsed.get(bucket.name, id, start)?.used ?? 0, start);
    },
    async insertKey(key) {
      db.prepare(
        "INSERT INTO api_keys (id, label, hash, last4, plan, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(key.id, key.label, key.hash, key.last4, key.plan, key.createdAt, key.revokedAt);
    },
    async findKeyByHash(hash) {
      const row = selectKeyByHash.get(hash);
      return row ? toKey(row) : null;
    },
    async listKeys() {
      return db.prepare<[], KeyRow>("SELECT * FROM api_keys ORDER BY created_at, id").all().map(toKey);
    },
    async revokeKey(id, at) {
      const found = db.prepare<[string], { id: string }>("SELECT id FROM api_keys WHERE id = ?").get(id);
      if (!found) return false;
      db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(at, id);
      return true;
    },
    async addToWaitlist(entry) {
      const info = db
        .prepare("INSERT INTO waitlist (email, use_case, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING")
        .run(entry.email, entry.useCase, entry.createdAt);
      return info.changes === 1;
    },
    async listWaitlist() {
      return db
        .prepare<[], { email: string; use_case: string | null; created_at: string }>(
          "SELECT email, use_case, created_at FROM waitlist ORDER BY created_at, email",
        )
        .all()
        .map((r) => ({ email: r.email, useCase: r.use_case, createdAt: r.created_at }));
    },
    async ping() {
      try {
        db.prepare("SELECT 1").get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      db.close();
    },
  } satisfies Store;
}

export type { WaitlistEntry };
