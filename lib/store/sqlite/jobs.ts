// Job and idempotency records in the embedded SQLite file. Every change is one transaction, retried on timers
// while another process holds the lock, like the rest of the SQLite store; a job's end writes its webhook delivery
// in the same transaction.

import { type ClaimOutcome, IDEMPOTENCY_TTL_MS, type IdempotencyStore } from "@/lib/idempotency/idempotency";
import { applyPatch, type JobStore } from "@/lib/jobs/store";
import { FINISHED_JOB_TTL_MS, isFinished, type JobRecord } from "@/lib/jobs/types";
import type { HeldUnit } from "@/lib/quota/types";
import type { SqliteConnection } from "./connection";
import { insertDelivery } from "./outbox";

type JobRow = { data: string };

export function openSqliteJobStore(conn: SqliteConnection): JobStore {
  // Statements are prepared per call: job traffic is light, and the JSON record is the bulk of the work.
  const { db, run } = conn.statements("jobs", () => undefined);

  const columns = (job: JobRecord) => ({
    id: job.id,
    status: job.status,
    lease_until: job.internal.leaseUntil,
    finished_ms: job.finished_at ? Date.parse(job.finished_at) : null,
    data: JSON.stringify(job),
  });
  const parse = (row: JobRow | undefined) => (row ? (JSON.parse(row.data) as JobRecord) : null);

  return {
    create: (job) =>
      run("create", () => {
        db.prepare(
          "INSERT INTO jobs (id, status, lease_until, finished_ms, data) VALUES (@id, @status, @lease_until, @finished_ms, @data)",
        ).run(columns(job));
      }),
    get: (id) => run("get", () => parse(db.prepare<[string], JobRow>("SELECT data FROM jobs WHERE id = ?").get(id))),
    getMany: (ids) =>
      run("getMany", () => {
        const found = new Map<string, JobRecord>();
        // SQLite takes at most 32,766 parameters a statement; a few hundred per chunk keeps each one quick.
        for (let i = 0; i < ids.length; i += 500) {
          const chunk = ids.slice(i, i + 500);
          const rows = db
            .prepare<string[], JobRow>(`SELECT data FROM jobs WHERE id IN (${chunk.map(() => "?").join(",")})`)
            .all(...chunk);
          for (const row of rows) {
            const job = JSON.parse(row.data) as JobRecord;
            found.set(job.id, job);
          }
        }
        return found;
      }),
    transition: (id, from, patch, deliveryOf) =>
      run("transition", () =>
        db
          .transaction(() => {
            const job = parse(db.prepare<[string], JobRow>("SELECT data FROM jobs WHERE id = ?").get(id));
            if (!job || !from.includes(job.status)) return null;
            const next = applyPatch(job, patch);
            db.prepare(
              "UPDATE jobs SET status = @status, lease_until = @lease_until, finished_ms = @finished_ms, data = @data WHERE id = @id",
            ).run(columns(next));
            // The job's end and its webhook delivery: one transaction, so a failed insert undoes the end too.
            if (deliveryOf) insertDelivery(db, deliveryOf(next));
            return next;
          })
          .immediate(),
      ),
    listExpired: (now, limit) =>
      run("listExpired", () =>
        db
          .prepare<[number, number], JobRow>(
            "SELECT data FROM jobs WHERE finished_ms IS NULL AND lease_until < ? ORDER BY lease_until LIMIT ?",
          )
          .all(now, limit)
          .map((row) => JSON.parse(row.data) as JobRecord)
          .filter((job) => !isFinished(job.status)),
      ),
    prune: (now) =>
      run("prune", () => {
        const jobs = db
          .prepare<[number]>("DELETE FROM jobs WHERE finished_ms IS NOT NULL AND finished_ms < ?")
          .run(now - FINISHED_JOB_TTL_MS).changes;
        db.prepare<[number]>("DELETE FROM idempotency WHERE expires_ms < ?").run(now);
        return jobs;
      }),
  };
}

type IdempotencyRow = {
  fingerprint: string;
  response: string | null;
  token: string | null;
  lease_until: number;
  units: string | null;
};

const unitsOf = (json: string | null): HeldUnit[] => (json ? (JSON.parse(json) as HeldUnit[]) : []);

/**
 * A running claim is a row without a response, with its token, lease end and the units it holds; an answer is a
 * row with a response, kept until `expires_ms`. A running claim's `expires_ms` only bounds a row no one reclaims.
 */
export function openSqliteIdempotency(conn: SqliteConnection): IdempotencyStore {
  const { db, run } = conn.statements("idempotency", () => undefined);
  return {
    claimIdempotencyKey: (key, { fingerprint, token, leaseMs }) =>
      run("claimIdempotencyKey", () =>
        db
          .transaction((): ClaimOutcome => {
            const now = Date.now();
            db.prepare<[string, number]>("DELETE FROM idempotency WHERE key = ? AND expires_ms < ?").run(key, now);
            const row = db
              .prepare<[string], IdempotencyRow>(
                "SELECT fingerprint, response, token, lease_until, units FROM idempotency WHERE key = ?",
              )
              .get(key);
            if (row && (row.response !== null || row.lease_until >= now)) {
              return {
                ours: false,
                existing: { fingerprint: row.fingerprint, response: row.response ? JSON.parse(row.response) : null },
              };
            }
            // Free, or a running claim whose lease lapsed: ours now, in the same transaction as the read.
            db.prepare<[string, string, string, number, number]>(
              `INSERT INTO idempotency (key, fingerprint, response, token, lease_until, units, expires_ms)
               VALUES (?, ?, NULL, ?, ?, NULL, ?)
               ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, response = NULL,
                 token = excluded.token, lease_until = excluded.lease_until, units = NULL, expires_ms = excluded.expires_ms`,
            ).run(key, fingerprint, token, now + leaseMs, now + IDEMPOTENCY_TTL_MS);
            return { ours: true, lapsedUnits: unitsOf(row?.units ?? null) };
          })
          .immediate(),
      ),
    hasIdempotencyKey: (key) =>
      run(
        "hasIdempotencyKey",
        () =>
          db
            .prepare<[string, number]>("SELECT 1 FROM idempotency WHERE key = ? AND expires_ms >= ?")
            .get(key, Date.now()) !== undefined,
      ),
    renewIdempotencyKey: (key, token, leaseMs, units) =>
      run(
        "renewIdempotencyKey",
        () =>
          db
            .prepare<[number, string | null, string, string]>(
              `UPDATE idempotency SET lease_until = ?, units = coalesce(?, units)
               WHERE key = ? AND token = ? AND response IS NULL`,
            )
            .run(Date.now() + leaseMs, units ? JSON.stringify(units) : null, key, token).changes === 1,
      ),
    completeIdempotencyKey: (key, token, response, ttlMs) =>
      run(
        "completeIdempotencyKey",
        () =>
          db
            .prepare<[string, number, string, string]>(
              `UPDATE idempotency SET response = ?, expires_ms = ?, lease_until = 0, units = NULL
               WHERE key = ? AND token = ?`,
            )
            .run(JSON.stringify(response), Date.now() + ttlMs, key, token).changes === 1,
      ),
    releaseIdempotencyKey: (key, token) =>
      run(
        "releaseIdempotencyKey",
        () =>
          db
            .prepare<[string, string]>("DELETE FROM idempotency WHERE key = ? AND token = ? AND response IS NULL")
            .run(key, token).changes === 1,
      ),
    reclaimLapsedIdempotencyKeys: (now, limit) =>
      run("reclaimLapsedIdempotencyKeys", () =>
        db
          .transaction(() =>
            db
              .prepare<[number, number], { units: string | null }>(
                `DELETE FROM idempotency WHERE key IN (
                   SELECT key FROM idempotency WHERE response IS NULL AND lease_until < ? LIMIT ?
                 ) RETURNING units`,
              )
              .all(now, limit)
              .map((row) => unitsOf(row.units)),
          )
          .immediate(),
      ),
  };
}
