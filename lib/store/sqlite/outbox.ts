// The webhook outbox on the embedded SQLite file. A claim is one UPDATE … RETURNING, atomic on its own, so two
// workers (in one process or in several sharing the file) never lease the same row. The job store writes a job's
// end and its delivery in one transaction on the same connection (insertDelivery).
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import type { ClaimedDelivery, Delivery, NewDelivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { CLAIM_LIMITS } from "@/lib/webhooks/policy";
import type { SqliteConnection } from "./connection";

type Row = {
  id: string;
  job_id: string;
  key_id: string;
  url: string;
  host: string;
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
    keyId: row.key_id,
    url: row.url,
    host: row.host,
    secret: row.secret,
    body: row.body,
    attempts: row.attempts,
    lastStatus: row.last_status,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}

const INSERT = `INSERT INTO webhook_deliveries (id, job_id, key_id, url, host, secret, body, next_attempt_at, created_at)
  VALUES (@id, @jobId, @keyId, @url, @host, @secret, @body, @nextAttemptAt, @createdAt) ON CONFLICT (id) DO NOTHING`;

/** Stores a delivery on `db`; inside the caller's transaction when there is one. */
export function insertDelivery(db: Database.Database, d: NewDelivery): void {
  db.prepare<NewDelivery>(INSERT).run(d);
}

/**
 * The fair claim, in three steps, each over what the one before let through: due rows are ranked within their key
 * and host (first attempts first, then oldest) and kept while the rank fits in what that key and host have left under
 * its cap; those are ranked within their key, then within their host, the same way (leased rows whose lease holds
 * are in flight). So one key's backlog to a host never counts against another key's place there. Taking rows in
 * rank order across keys is the round-robin.
 */
const CLAIM = `
WITH inflight AS (
  SELECT key_id, host FROM webhook_deliveries WHERE lease IS NOT NULL AND next_attempt_at > @now
), due AS (
  SELECT id, key_id, host, attempts > 0 AS retry, next_attempt_at, created_at,
    ROW_NUMBER() OVER (PARTITION BY key_id, host ORDER BY attempts > 0, next_attempt_at, created_at) AS pair_rank
  FROM webhook_deliveries WHERE next_attempt_at <= @now
), by_pair AS (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY key_id ORDER BY retry, next_attempt_at, created_at) AS key_rank
  FROM due
  WHERE pair_rank <= @perKeyHost
    - (SELECT count(*) FROM inflight WHERE inflight.key_id = due.key_id AND inflight.host = due.host)
), by_key AS (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY host ORDER BY retry, next_attempt_at, created_at) AS host_rank
  FROM by_pair
  WHERE key_rank <= @perKey - (SELECT count(*) FROM inflight WHERE inflight.key_id = by_pair.key_id)
), chosen AS (
  SELECT id FROM by_key
  WHERE host_rank <= @perHost - (SELECT count(*) FROM inflight WHERE inflight.host = by_key.host)
  ORDER BY retry, key_rank, next_attempt_at
  LIMIT @limit
)
UPDATE webhook_deliveries SET next_attempt_at = @leaseEnd, lease = @lease WHERE id IN (SELECT id FROM chosen)
RETURNING *`;

type ClaimParams = {
  now: number;
  leaseEnd: number;
  lease: string;
  limit: number;
  perKey: number;
  perKeyHost: number;
  perHost: number;
};

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare<NewDelivery>(INSERT),
    // A read first, so an idle poll never takes the write lock the quota statements also need.
    anyDue: db.prepare<[number], { due: number }>(
      "SELECT 1 AS due FROM webhook_deliveries WHERE next_attempt_at <= ? LIMIT 1",
    ),
    claim: db.prepare<ClaimParams, Row>(CLAIM),
    reschedule: db.prepare<[number, number | null, number, string, string]>(
      `UPDATE webhook_deliveries SET attempts = ?, last_status = ?, next_attempt_at = ?, lease = NULL
       WHERE id = ? AND lease = ?`,
    ),
    finish: db.prepare<[string, string]>("DELETE FROM webhook_deliveries WHERE id = ? AND lease = ?"),
    select: db.prepare<[string], Row>("SELECT * FROM webhook_deliveries WHERE id = ?"),
  };
}

/** First attempts first, then oldest first (RETURNING gives rows in no promised order). */
const claimOrder = (a: Delivery, b: Delivery) =>
  Number(a.attempts > 0) - Number(b.attempts > 0) || a.createdAt - b.createdAt;

export function openSqliteWebhookOutbox(conn: SqliteConnection): WebhookOutbox {
  const { run } = conn.statements("webhooks", prepareStatements);

  return {
    kind: "sqlite",
    async enqueue(d) {
      await run("enqueue", (s) => s.insert.run(d));
    },
    async claimDue(now, leaseMs, limit, caps = CLAIM_LIMITS) {
      const lease = crypto.randomUUID();
      const { perKey, perKeyHost, perHost } = caps;
      const params = { now, leaseEnd: now + leaseMs, lease, limit, perKey, perKeyHost, perHost };
      const rows = await run("claimDue", (s) => (s.anyDue.get(now) ? s.claim.all(params) : []));
      return rows.map((row): ClaimedDelivery => ({ ...toDelivery(row), lease })).sort(claimOrder);
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
