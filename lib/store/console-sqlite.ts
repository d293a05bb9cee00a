// The console's data on the embedded SQLite file: each change is one statement (or one transaction), so it is
// atomic across requests and across processes sharing the file (the server and the keys CLI).
import type Database from "better-sqlite3";
import { AUDIT_KEEP, type AuditAction, type AuditEntry, type WaitlistStatus } from "@/lib/console/types";
import type { ConsoleStore } from "@/lib/store/types";
import { type KeyRow, toKey } from "./sqlite";
import { openSqliteFile } from "./sqlite-file";
import type { RetryOptions } from "./sqlite-retry";

type WaitlistRow = {
  id: string;
  email: string;
  use_case: string | null;
  created_at: string;
  status: WaitlistStatus;
  key_id: string | null;
  decided_at: string | null;
};

type AuditRow = {
  id: number;
  at: string;
  action: AuditAction;
  target: string;
  ip: string | null;
  actor: string;
  detail: string | null;
};

const WAITLIST_COLUMNS = "id, email, use_case, created_at, status, key_id, decided_at";

function prepare(db: Database.Database) {
  return {
    listWaitlist: db.prepare<[], WaitlistRow>(`SELECT ${WAITLIST_COLUMNS} FROM waitlist ORDER BY created_at, email`),
    findWaitlist: db.prepare<[string], WaitlistRow>(`SELECT ${WAITLIST_COLUMNS} FROM waitlist WHERE id = ?`),
    // One statement: the status it moves from is checked and changed together.
    decide: db.prepare<[string, string | null, string | null, string, string, string, string, number, string]>(
      `UPDATE waitlist SET status = ?, key_id = ?, decided_at = ?
       WHERE id = ? AND status IN (?, ?, ?) AND (? = 0 OR key_id = ?)`,
    ),
    waitlistExists: db.prepare<[string], { found: number }>("SELECT 1 AS found FROM waitlist WHERE id = ?"),
    findKey: db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE id = ?"),
    setLimit: db.prepare<[number | null, string]>("UPDATE api_keys SET daily_limit = ? WHERE id = ?"),
    ensureSecret: db.prepare<[string, string], { webhook_secret: string }>(
      "UPDATE api_keys SET webhook_secret = coalesce(webhook_secret, ?) WHERE id = ? RETURNING webhook_secret",
    ),
    appendAudit: db.prepare<[string, string, string, string | null, string, string | null]>(
      "INSERT INTO audit_log (at, action, target, ip, actor, detail) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    trimAudit: db.prepare<[number]>(
      "DELETE FROM audit_log WHERE id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET ?)",
    ),
    listAudit: db.prepare<[number], AuditRow>("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?"),
  };
}

function toWaitlist(row: WaitlistRow) {
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

export function openSqliteConsoleStore(dataDir: string, opts: RetryOptions = {}): ConsoleStore {
  const { db, run } = openSqliteFile(dataDir, "sqlite console", prepare, opts);
  return {
    async listWaitlist() {
      return (await run("listWaitlist", (s) => s.listWaitlist.all())).map(toWaitlist);
    },
    async findWaitlistEntry(id) {
      const row = await run("findWaitlistEntry", (s) => s.findWaitlist.get(id));
      return row ? toWaitlist(row) : null;
    },
    async decideWaitlistEntry(id, d) {
      const [a, b = a, c = b] = d.from;
      const { changes } = await run("decideWaitlistEntry", (s) =>
        s.decide.run(d.to, d.keyId, d.at, id, a, b, c, d.ifKeyId === undefined ? 0 : 1, d.ifKeyId ?? ""),
      );
      if (changes === 1) return "ok";
      return (await run("decideWaitlistEntry", (s) => s.waitlistExists.get(id))) ? "conflict" : "missing";
    },
    async findKey(id) {
      const row = await run("findKey", (s) => s.findKey.get(id));
      return row ? toKey(row) : null;
    },
    async setKeyDailyLimit(id, limit) {
      return (await run("setKeyDailyLimit", (s) => s.setLimit.run(limit, id))).changes === 1;
    },
    async ensureWebhookSecret(id, secret) {
      return (await run("ensureWebhookSecret", (s) => s.ensureSecret.get(secret, id)))?.webhook_secret ?? null;
    },
    async appendAudit(e) {
      await run("appendAudit", (s) =>
        db
          .transaction(() => {
            s.appendAudit.run(e.at, e.action, e.target, e.ip, e.actor, e.detail);
            s.trimAudit.run(AUDIT_KEEP);
          })
          .immediate(),
      );
    },
    async listAudit(limit) {
      const rows = await run("listAudit", (s) => s.listAudit.all(limit));
      return rows.map((r): AuditEntry => ({ ...r, id: String(r.id) }));
    },
    async close() {
      db.close();
    },
  };
}
