// The waitlist on the embedded SQLite file: each change is one statement or one transaction, so
// it is atomic across requests and across processes sharing the file (the server and the CLIs).
import type Database from "better-sqlite3";
import type { KeyRecord } from "@/lib/auth/types";
import type { DecisionOutcome, WaitlistRecord, WaitlistRepository, WaitlistStatus } from "@/lib/console/types";
import type { SqliteConnection } from "./connection";
import { insertKeyRow } from "./keys";

type WaitlistRow = {
  id: string;
  email: string;
  use_case: string | null;
  created_at: string;
  status: WaitlistStatus;
  key_id: string | null;
  decided_at: string | null;
};

const WAITLIST_COLUMNS = "id, email, use_case, created_at, status, key_id, decided_at";
/** One statement: the status it moves from is checked and changed together. */
const DECIDE = `UPDATE waitlist SET status = ?, key_id = ?, decided_at = ?
  WHERE id = ? AND status IN (?, ?, ?) AND (? = 0 OR key_id = ?)`;

/** The entries a query matches: `$status` null for any, `$like` null for no search (a LIKE pattern otherwise). */
const MATCHES = `($status IS NULL OR status = $status)
  AND ($like IS NULL OR email LIKE $like ESCAPE '\\' OR use_case LIKE $like ESCAPE '\\')`;
type Match = { status: string | null; like: string | null };

/** A LIKE pattern for a substring: its own %, _ and backslash match themselves. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function prepareWaitlist(db: Database.Database) {
  return {
    add: db.prepare<[string, string | null, string]>(
      "INSERT INTO waitlist (email, use_case, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING",
    ),
    list: db.prepare<[], WaitlistRow>(`SELECT ${WAITLIST_COLUMNS} FROM waitlist ORDER BY created_at, email`),
    find: db.prepare<[string], WaitlistRow>(`SELECT ${WAITLIST_COLUMNS} FROM waitlist WHERE id = ?`),
    decide: db.prepare<[string, string | null, string | null, string, string, string, string, number, string]>(DECIDE),
    exists: db.prepare<[string], { found: number }>("SELECT 1 AS found FROM waitlist WHERE id = ?"),
    page: db.prepare<[Match & { limit: number; offset: number }], WaitlistRow>(
      `SELECT ${WAITLIST_COLUMNS} FROM waitlist WHERE ${MATCHES} ORDER BY created_at, email LIMIT $limit OFFSET $offset`,
    ),
    total: db.prepare<[Match], { n: number }>(`SELECT count(*) AS n FROM waitlist WHERE ${MATCHES}`),
    counts: db.prepare<[], { status: WaitlistStatus; n: number }>(
      "SELECT status, count(*) AS n FROM waitlist GROUP BY status",
    ),
  };
}

function toWaitlist(row: WaitlistRow): WaitlistRecord {
  return {
    id: row.id,
    email: row.email,
    useCase: row.use_case,
    createdAt: row.created_at,
    status: row.status,
    keyId: row.key_id,
    decidedAt: row.decided_at,
  };
}

export function openSqliteWaitlist(conn: SqliteConnection): WaitlistRepository {
  const { db, run } = conn.statements("sqlite waitlist", prepareWaitlist);
  let statements: ReturnType<typeof prepareWaitlist> | undefined;
  const prepared = () => {
    statements ??= prepareWaitlist(db);
    return statements;
  };
  const outcomeOf = async (id: string, changes: number): Promise<DecisionOutcome> => {
    if (changes === 1) return "ok";
    return (await run("decideWaitlistEntry", (s) => s.exists.get(id))) ? "conflict" : "missing";
  };
  return {
    async addToWaitlist(entry) {
      const info = await run("addToWaitlist", (s) => s.add.run(entry.email, entry.useCase, entry.createdAt));
      return info.changes === 1;
    },
    async listWaitlist() {
      return (await run("listWaitlist", (s) => s.list.all())).map(toWaitlist);
    },
    async queryWaitlist(q) {
      const match: Match = { status: q.status ?? null, like: q.search ? likePattern(q.search) : null };
      // One read transaction: the page, its total and the counts describe the same moment.
      const { rows, total, byStatus } = await conn.transaction("queryWaitlist", () => {
        const s = prepared();
        return {
          rows: s.page.all({ ...match, limit: q.limit, offset: q.offset }),
          total: s.total.get(match)?.n ?? 0,
          byStatus: s.counts.all(),
        };
      });
      const counts = { pending: 0, invited: 0, declined: 0 };
      for (const { status, n } of byStatus) if (status in counts) counts[status] = n;
      return { entries: rows.map(toWaitlist), total, counts };
    },
    async findWaitlistEntry(id) {
      const row = await run("findWaitlistEntry", (s) => s.find.get(id));
      return row ? toWaitlist(row) : null;
    },
    async decideWaitlistEntry(id, d) {
      const [a, b = a, c = b] = d.from;
      const { changes } = await run("decideWaitlistEntry", (s) =>
        s.decide.run(d.to, d.keyId, d.at, id, a, b, c, d.ifKeyId === undefined ? 0 : 1, d.ifKeyId ?? ""),
      );
      return outcomeOf(id, changes);
    },
    async approveWaitlistEntry(id: string, key: KeyRecord) {
      // One transaction: the entry moves to invited and the key is stored, or neither happens.
      const changes = await conn.transaction("approveWaitlistEntry", () => {
        const { changes } = db
          .prepare(DECIDE)
          .run("invited", key.id, key.createdAt, id, "pending", "declined", "declined", 0, "");
        if (changes === 1) insertKeyRow(db, key);
        return changes;
      });
      return outcomeOf(id, changes);
    },
  };
}
