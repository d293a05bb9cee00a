// The embedded backend: every repository on one better-sqlite3 connection to DATA_DIR/darkroom.db.

import type { Backend, BackendOptions } from "@/lib/store/backend";
import { noUsageHistory } from "@/lib/usage/history";
import { openSqliteAuditLog } from "./audit";
import { openSqliteConnection } from "./connection";
import { openSqliteIdempotency } from "./idempotency";
import { openSqliteImageStore } from "./images";
import { openSqliteJobStore } from "./jobs";
import { openSqliteKeys } from "./keys";
import { openSqliteWebhookOutbox } from "./outbox";
import { openSqliteQuota, type SqliteQuota, type SqliteQuotaOptions } from "./quota";
import type { RetryOptions } from "./retry";
import { openSqliteSessions } from "./sessions";
import { openSqliteSlidingWindow } from "./sliding-window";
import { openSqliteUsageHistory } from "./usage";
import { openSqliteWaitlist } from "./waitlist";

export { DB_FILE } from "./connection";

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
