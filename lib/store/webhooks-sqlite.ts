// The webhook outbox on the embedded SQLite file, on a connection of its own. A claim is one UPDATE … RETURNING,
// atomic on its own, so two workers (in one process or in several sharing the file) never lease the same row.
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import type { ClaimedDelivery, Delivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import type { SqliteConnection } from "./sqlite-file";

type Row = {
  id: string;
  job_id: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
  last_status: number | null;
  next_attempt_at: number;
  lease: string | null;
  created_at: number;
};

function toDelivery(row: Row): Delivery {
  return {
    id: row.id,
    jobId: row.job_id,
    url: row.url,
    secret: row.secret,
    body: row.body,
    attempts: row.attempts,
    lastStatus: row.last_status,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare<[string, string, string, string, string, number, number]>(
      `INSERT INTO webhook_deliveries (id, job_id, url, secret, body, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ),
    // A read first, so an idle poll never takes the write lock the quota statements also need.
    anyDue: db.prepare<[number], { due: number }>(
      "SELECT 1 AS due FROM webhook_deliveries WHERE next_attempt_at <= ? LIMIT 1",
    ),
    claim: db.prepare<[number, string, number, number], Row>(
      `UPDATE webhook_deliveries SET next_attempt_at = ?, lease = ?
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?)
       RETURNING *`,
    ),
    reschedule: db.prepare<[number, number | null, number, string, string]>(
      `UPDATE webhook_deliveries SET attempts = ?, last_status = ?, next_attempt_at = ?, lease = NULL
       WHERE id = ? AND lease = ?`,
    ),
    finish: db.prepare<[string, string]>("DELETE FROM webhook_deliveries WHERE id = ? AND lease = ?"),
    select: db.prepare<[string], Row>("SELECT * FROM webhook_deliveries WHERE id = ?"),
  };
}

export function openSqliteWebhookOutbox(conn: SqliteConnection): WebhookOutbox {
  const { run } = conn.statements("webhooks", prepareStatements);

  return {
    kind: "sqlite",
    async enqueue(d) {
      await run("enqueue", (s) => s.insert.run(d.id, d.jobId, d.url, d.secret, d.body, d.nextAttemptAt, d.createdAt));
    },
    async claimDue(now, leaseMs, limit) {
      const lease = crypto.randomUUID();
      const rows = await run("claimDue", (s) =>
        s.anyDue.get(now) ? s.claim.all(now + leaseMs, lease, now, limit) : [],
      );
      return rows
        .map((row): ClaimedDelivery => ({ ...toDelivery(row), lease }))
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async recordAttempt(id, lease, record) {
      const info = await run("recordAttempt", (s) =>
        record.retryAt === null
          ? s.finish.run(id, lease)
          : s.reschedule.run(record.attempts, record.lastStatus, record.retryAt, id, lease),
      );
      return info.changes === 1;
    },
    async get(id) {
      const row = await run("get", (s) => s.select.get(id));
      return row ? toDelivery(row) : null;
    },
    async close() {
      // The connection is the backend's.
    },
  };
}
