// The audit log on the embedded SQLite file: an append and its trim to the last AUDIT_KEEP are one transaction.
import type Database from "better-sqlite3";
import { AUDIT_KEEP, type AuditAction, type AuditEntry, type AuditLog } from "@/lib/console/types";
import type { SqliteConnection } from "./connection";

type AuditRow = {
  id: number;
  at: string;
  action: AuditAction;
  target: string;
  ip: string | null;
  actor: string;
  detail: string | null;
};

function prepareAudit(db: Database.Database) {
  return {
    append: db.prepare<[string, string, string, string | null, string, string | null]>(
      "INSERT INTO audit_log (at, action, target, ip, actor, detail) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    trim: db.prepare<[number]>(
      "DELETE FROM audit_log WHERE id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET ?)",
    ),
    list: db.prepare<[number], AuditRow>("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?"),
  };
}

export function openSqliteAuditLog(conn: SqliteConnection): AuditLog {
  const { db, run } = conn.statements("sqlite audit", prepareAudit);
  return {
    async appendAudit(e) {
      await run("appendAudit", (s) =>
        db
          .transaction(() => {
            s.append.run(e.at, e.action, e.target, e.ip, e.actor, e.detail);
            s.trim.run(AUDIT_KEEP);
          })
          .immediate(),
      );
    },
    async listAudit(limit) {
      const rows = await run("listAudit", (s) => s.list.all(limit));
      return rows.map((r): AuditEntry => ({ ...r, id: String(r.id) }));
    },
  };
}
