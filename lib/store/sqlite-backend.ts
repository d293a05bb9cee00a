// The embedded backend: every repository on one better-sqlite3 connection to DATA_DIR/darkroom.db.
import { noUsageHistory } from "@/lib/usage/history";
import type { Backend, BackendOptions } from "./backend";
import { openSqliteImageStore } from "./images-sqlite";
import { openSqliteIdempotency, openSqliteJobStore } from "./jobs-sqlite";
import { openSqliteConnection } from "./sqlite-file";
import { openSqliteKeys } from "./sqlite-keys";
import { openSqliteQuota, type SqliteQuota, type SqliteQuotaOptions } from "./sqlite-quota";
import type { RetryOptions } from "./sqlite-retry";
import { openSqliteSessions } from "./sqlite-sessions";
import { openSqliteSlidingWindow } from "./sqlite-sliding";
import { openSqliteAuditLog, openSqliteWaitlist } from "./sqlite-waitlist";
import { openSqliteUsageHistory } from "./usage-history-sqlite";
import { openSqliteWebhookOutbox } from "./webhooks-sqlite";

export { DB_FILE } from "./sqlite-file";

export type SqliteBackendOptions = Partial<BackendOptions> & RetryOptions & SqliteQuotaOptions;

export type SqliteBackend = Backend & { readonly kind: "sqlite"; quota: SqliteQuota };

export function openSqliteBackend(dataDir: string, opts: SqliteBackendOptions = {}): SqliteBackend {
  const conn = openSqliteConnection(dataDir, opts);
  const keepDays = opts.usageHistoryDays ?? 90;
  const quota = openSqliteQuota(conn, opts);
  const images = openSqliteImageStore(conn);
  const webhooks = openSqliteWebhookOutbox(conn);
  const usage = keepDays === 0 ? noUsageHistory : openSqliteUsageHistory(conn, { keepDays });
  let closing: Promise<void> | undefined;
  return {
    kind: "sqlite",
    quota,
    keys: openSqliteKeys(conn),
    waitlist: openSqliteWaitlist(conn),
    audit: openSqliteAuditLog(conn),
    sessions: openSqliteSessions(conn),
    attempts: openSqliteSlidingWindow(conn),
    images,
    jobs: openSqliteJobStore(conn),
    idempotency: openSqliteIdempotency(conn),
    webhooks,
    usage,
    ping: () => quota.ping(),
    close() {
      closing ??= Promise.all([quota.close(), usage.close(), images.close(), webhooks.close()]).then(() =>
        conn.close(),
      );
      return closing;
    },
  };
}
