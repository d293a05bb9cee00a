// The console's sessions on the embedded SQLite file: one row each, found by id; expired rows are dropped as new
// sessions are opened.
import type Database from "better-sqlite3";
import type { AdminSession, AdminSessionStore } from "@/lib/console/sessions";
import type { SqliteConnection } from "./connection";

type SessionRow = { id: string; token_digest: string; created_at: number; expires_at: number; ip: string | null };

function prepare(db: Database.Database) {
  return {
    put: db.prepare<[string, string, number, number, string | null]>(
      "INSERT INTO admin_sessions (id, token_digest, created_at, expires_at, ip) VALUES (?, ?, ?, ?, ?)",
    ),
    pruneExpired: db.prepare<[number]>("DELETE FROM admin_sessions WHERE expires_at <= ?"),
    get: db.prepare<[string], SessionRow>("SELECT * FROM admin_sessions WHERE id = ?"),
    delete: db.prepare<[string]>("DELETE FROM admin_sessions WHERE id = ?"),
    deleteAll: db.prepare("DELETE FROM admin_sessions"),
  };
}

export function openSqliteSessions(conn: SqliteConnection): AdminSessionStore {
  const { run } = conn.statements("sqlite sessions", prepare);
  return {
    async putSession(s: AdminSession) {
      await run("putSession", (st) => {
        st.pruneExpired.run(s.createdAt);
        st.put.run(s.id, s.tokenDigest, s.createdAt, s.expiresAt, s.ip);
      });
    },
    async getSession(id) {
      const row = await run("getSession", (st) => st.get.get(id));
      return row
        ? {
            id: row.id,
            tokenDigest: row.token_digest,
            createdAt: row.created_at,
            expiresAt: row.expires_at,
            ip: row.ip,
          }
        : null;
    },
    async deleteSession(id) {
      return (await run("deleteSession", (st) => st.delete.run(id))).changes > 0;
    },
    async deleteAllSessions() {
      return (await run("deleteAllSessions", (st) => st.deleteAll.run())).changes;
    },
  };
}
