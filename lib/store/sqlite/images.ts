// Image records in the embedded SQLite file (its own connection, same file and migrations as the quota store).
// Each claim is one UPDATE … RETURNING, atomic across every process that shares the file.
import type Database from "better-sqlite3";
import type { ImageParams, ImageRecord, ImageStore } from "@/lib/images/store";
import { parsePosition, positionOf } from "@/lib/images/store";
import type { SqliteConnection } from "./connection";

type Row = {
  id: string;
  owner: string;
  kind: "generate" | "enhance";
  url: string;
  params: string;
  width: number;
  height: number;
  bytes: number;
  created_at: number;
  expires_at: number | null;
  token_hash: string;
  source_image_id: string | null;
};

function toRecord(row: Row): ImageRecord {
  return {
    id: row.id,
    owner: row.owner,
    kind: row.kind,
    url: row.url,
    params: JSON.parse(row.params) as ImageParams,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    deleteTokenHash: row.token_hash,
    ...(row.source_image_id !== null && { sourceImageId: row.source_image_id }),
  };
}

/** A cutoff that nothing is older than, for "no retention cutoff". */
const NO_CUTOFF = -1;
const COLUMNS =
  "id, owner, kind, url, params, width, height, bytes, created_at, expires_at, token_hash, source_image_id";
/** Live: not claimed, and neither past its expiry nor older than the cutoff. */
const LIVE = "lease_until IS NULL AND (expires_at IS NULL OR expires_at > @now) AND created_at > @cutoff";

function prepareStatements(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO images (${COLUMNS}) VALUES
         (@id, @owner, @kind, @url, @params, @width, @height, @bytes, @created_at, @expires_at, @token_hash,
          @source_image_id)
       ON CONFLICT (id) DO NOTHING`,
    ),
    list: db.prepare<{ owner: string; now: number; cutoff: number; at: number; after: string; limit: number }, Row>(
      `SELECT ${COLUMNS} FROM images
       WHERE owner = @owner AND (created_at, id) < (@at, @after) AND ${LIVE}
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    claim: db.prepare<
      {
        id: string;
        owner: string | null;
        token: string | null;
        operator: number;
        now: number;
        cutoff: number;
        until: number;
        lease: string;
      },
      Row
    >(
      `UPDATE images SET lease_until = @until, lease_id = @lease
       WHERE id = @id AND (lease_until IS NULL OR lease_until <= @now)
         AND (@operator = 1 OR ((owner = @owner OR token_hash = @token)
           AND (expires_at IS NULL OR expires_at > @now) AND created_at > @cutoff))
       RETURNING ${COLUMNS}`,
    ),
    // Each arm is bounded and uses its own index; a record in two arms is claimed once.
    claimDue: db.prepare<{ now: number; cutoff: number; until: number; lease: string; limit: number }, Row>(
      `UPDATE images SET lease_until = @until, lease_id = @lease
       WHERE id IN (
         SELECT id FROM (SELECT id FROM images WHERE lease_until IS NOT NULL AND lease_until <= @now LIMIT @limit)
         UNION SELECT id FROM (SELECT id FROM images WHERE lease_until IS NULL AND expires_at <= @now LIMIT @limit)
         UNION SELECT id FROM (SELECT id FROM images WHERE lease_until IS NULL AND created_at <= @cutoff LIMIT @limit)
         LIMIT @limit)
       RETURNING ${COLUMNS}`,
    ),
    claimOwned: db.prepare<{ owner: string; now: number; until: number; lease: string; limit: number }, Row>(
      `UPDATE images SET lease_until = @until, lease_id = @lease
       WHERE id IN (SELECT id FROM images WHERE owner = @owner AND (lease_until IS NULL OR lease_until <= @now)
                    LIMIT @limit)
       RETURNING ${COLUMNS}`,
    ),
    finish: db.prepare<[string, string]>("DELETE FROM images WHERE id = ? AND lease_id = ?"),
    release: db.prepare<[number, string, string]>(
      "UPDATE images SET lease_until = ? WHERE id = ? AND lease_id = ? AND lease_until IS NOT NULL",
    ),
    count: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM images"),
    find: db.prepare<{ id: string; owner: string; now: number; cutoff: number }, Row>(
      `SELECT ${COLUMNS} FROM images WHERE id = @id AND owner = @owner AND ${LIVE}`,
    ),
  };
}

export function openSqliteImageStore(conn: SqliteConnection): ImageStore {
  // Every statement here is one atomic write or a read: a locked attempt changed nothing and can run again.
  const { run } = conn.statements("sqlite images", prepareStatements);
  const cutoffOf = (cutoff: number | null) => cutoff ?? NO_CUTOFF;

  return {
    kind: "sqlite",
    async insert(r) {
      await run("insert", (s) =>
        s.insert.run({
          id: r.id,
          owner: r.owner,
          kind: r.kind,
          url: r.url,
          params: JSON.stringify(r.params),
          width: r.width,
          height: r.height,
          bytes: r.bytes,
          created_at: r.createdAt,
          expires_at: r.expiresAt,
          token_hash: r.deleteTokenHash,
          source_image_id: r.sourceImageId ?? null,
        }),
      );
    },
    async find(id, owner, { now, cutoff }) {
      const row = await run("find", (s) => s.find.get({ id, owner, now, cutoff: cutoffOf(cutoff) }));
      return row ? toRecord(row) : null;
    },
    async list(owner, { now, cutoff, limit, after }) {
      const from = after ? parsePosition(after) : null;
      const rows = await run("list", (s) =>
        s.list.all({
          owner,
          now,
          cutoff: cutoffOf(cutoff),
          at: from?.createdAt ?? Number.MAX_SAFE_INTEGER,
          after: from?.id ?? "",
          limit: limit + 1,
        }),
      );
      const records = rows.slice(0, limit).map(toRecord);
      return { records, next: rows.length > limit ? positionOf(records[records.length - 1]) : null };
    },
    async claim(id, claimant, lease, due) {
      const row = await run("claim", (s) =>
        s.claim.get({
          id,
          owner: claimant === "operator" ? null : (claimant.owner ?? null),
          token: claimant === "operator" ? null : (claimant.tokenHash ?? null),
          operator: claimant === "operator" ? 1 : 0,
          now: due.now,
          cutoff: cutoffOf(due.cutoff),
          until: lease.until,
          lease: lease.id,
        }),
      );
      return row ? toRecord(row) : null;
    },
    async claimDue(lease, due, limit) {
      const rows = await run("claimDue", (s) =>
        s.claimDue.all({ now: due.now, cutoff: cutoffOf(due.cutoff), until: lease.until, lease: lease.id, limit }),
      );
      return rows.map(toRecord);
    },
    async claimOwned(owner, lease, limit) {
      const rows = await run("claimOwned", (s) =>
        s.claimOwned.all({ owner, now: lease.now, until: lease.until, lease: lease.id, limit }),
      );
      return rows.map(toRecord);
    },
    async finish(record, leaseId) {
      return (await run("finish", (s) => s.finish.run(record.id, leaseId))).changes === 1;
    },
    async release(id, leaseId, now) {
      await run("release", (s) => s.release.run(now, id, leaseId));
    },
    async count() {
      return (await run("count", (s) => s.count.get()))?.n ?? 0;
    },
    async close() {
      // The connection is the backend's.
    },
  };
}
