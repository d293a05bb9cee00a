// Job records in the embedded SQLite file. Every change is one transaction, retried on timers
// while another process holds the lock, like the rest of the SQLite store; a job's end writes its webhook delivery
// in the same transaction.

import { applyPatch, type JobStore } from "@/lib/jobs/store";
import { FINISHED_JOB_TTL_MS, isFinished, type JobRecord } from "@/lib/jobs/types";
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
