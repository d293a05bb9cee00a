// Pro keys on the embedded SQLite file: one table, each change one statement.
import type Database from "better-sqlite3";
import type { KeyRecord, KeyRepository } from "@/lib/auth/types";
import type { SqliteConnection } from "./connection";

export type KeyRow = {
  id: string;
  label: string;
  hash: string;
  last4: string;
  plan: "pro";
  created_at: string;
  revoked_at: string | null;
  email: string | null;
  daily_limit: number | null;
  webhook_secret: string | null;
};

export function toKey(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    label: row.label,
    hash: row.hash,
    last4: row.last4,
    plan: row.plan,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    // The 1.1 fields are left out when unset, as on a key made before them.
    ...(row.email !== null && { email: row.email }),
    ...(row.daily_limit !== null && { dailyLimit: row.daily_limit }),
    ...(row.webhook_secret !== null && { webhookSecret: row.webhook_secret }),
  };
}

const INSERT_KEY = `INSERT INTO api_keys
  (id, label, hash, last4, plan, created_at, revoked_at, email, daily_limit, webhook_secret)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function prepare(db: Database.Database) {
  return {
    insertKey:
      db.prepare<
        [string, string, string, string, string, string, string | null, string | null, number | null, string | null]
      >(INSERT_KEY),
    findKey: db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE id = ?"),
    findKeyByHash: db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE hash = ?"),
    listKeys: db.prepare<[], KeyRow>("SELECT * FROM api_keys ORDER BY created_at, id"),
    // One statement: the first revocation time stays, and `changes` tells whether the id exists.
    revokeKey: db.prepare<[string, string]>("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?"),
    setLimit: db.prepare<[number | null, string]>("UPDATE api_keys SET daily_limit = ? WHERE id = ?"),
    ensureSecret: db.prepare<[string, string], { webhook_secret: string }>(
      "UPDATE api_keys SET webhook_secret = coalesce(webhook_secret, ?) WHERE id = ? RETURNING webhook_secret",
    ),
  };
}

/** The row's values in INSERT_KEY's order. */
function keyValues(key: KeyRecord) {
  return [
    key.id,
    key.label,
    key.hash,
    key.last4,
    key.plan,
    key.createdAt,
    key.revokedAt,
    key.email ?? null,
    key.dailyLimit ?? null,
    key.webhookSecret ?? null,
  ] as const;
}

/** Inserts a key inside a transaction the caller holds (approving a waitlist entry). */
export function insertKeyRow(db: Database.Database, key: KeyRecord): void {
  db.prepare(INSERT_KEY).run(...keyValues(key));
}

export function openSqliteKeys(conn: SqliteConnection): KeyRepository {
  const { run } = conn.statements("sqlite keys", prepare);
  return {
    async insertKey(key) {
      await run("insertKey", (s) => s.insertKey.run(...keyValues(key)));
    },
    async findKey(id) {
      const row = await run("findKey", (s) => s.findKey.get(id));
      return row ? toKey(row) : null;
    },
    async findKeyByHash(hash) {
      const row = await run("findKeyByHash", (s) => s.findKeyByHash.get(hash));
      return row ? toKey(row) : null;
    },
    async listKeys() {
      return (await run("listKeys", (s) => s.listKeys.all())).map(toKey);
    },
    async revokeKey(id, at) {
      return (await run("revokeKey", (s) => s.revokeKey.run(at, id))).changes === 1;
    },
    async setKeyDailyLimit(id, limit) {
      return (await run("setKeyDailyLimit", (s) => s.setLimit.run(limit, id))).changes === 1;
    },
    async ensureWebhookSecret(id, secret) {
      return (await run("ensureWebhookSecret", (s) => s.ensureSecret.get(secret, id)))?.webhook_secret ?? null;
    },
  };
}
