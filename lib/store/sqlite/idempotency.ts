// Idempotency-Key records in the embedded SQLite file: each change is one transaction, retried on timers while
// another process holds the lock, like the rest of the SQLite store.
import { type ClaimOutcome, IDEMPOTENCY_TTL_MS, type IdempotencyStore } from "@/lib/idempotency/idempotency";
import type { HeldUnit } from "@/lib/quota/types";
import type { SqliteConnection } from "./connection";

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
