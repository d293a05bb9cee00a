// One backend per store kind: SQLite (embedded, one connection) or Redis (one client). Each offers the same
// repositories, one per entity; a new store-backed feature is one repository interface in its domain, one
// implementation per backend, and one line in each backend's factory.
import type { KeyRepository } from "@/lib/auth/types";
import type { AdminSessionStore } from "@/lib/console/sessions";
import type { AuditLog, WaitlistRepository } from "@/lib/console/types";
import type { IdempotencyStore } from "@/lib/idempotency/idempotency";
import type { ImageStore } from "@/lib/images/store";
import type { JobStore } from "@/lib/jobs/store";
import type { SlidingWindowCounter } from "@/lib/quota/sliding";
import type { QuotaCounters } from "@/lib/quota/types";
import type { UsageHistory } from "@/lib/usage/history";
import type { WebhookOutbox } from "@/lib/webhooks/outbox";

/** "upstash": Redis over Upstash's REST API; "redis": any Redis over TCP (REDIS_URL). */
export type BackendKind = "sqlite" | "upstash" | "redis";

export type Backend = {
  readonly kind: BackendKind;
  quota: QuotaCounters;
  keys: KeyRepository;
  waitlist: WaitlistRepository;
  audit: AuditLog;
  /** The console's sign-in sessions. */
  sessions: AdminSessionStore;
  /** Sliding-window attempt counters (failed admin sign-ins, cron calls). */
  attempts: SlidingWindowCounter;
  images: ImageStore;
  jobs: JobStore;
  idempotency: IdempotencyStore;
  webhooks: WebhookOutbox;
  /** Daily usage aggregates; records nothing when USAGE_HISTORY_DAYS is 0. */
  usage: UsageHistory;
  /** Cheap health probe for /api/status; false when the backend is unreachable. */
  ping(): Promise<boolean>;
  /** Stops the repositories' background work, then releases the connection or client. */
  close(): Promise<void>;
};

export type BackendOptions = {
  /** Days of usage history to keep; 0 keeps none. */
  usageHistoryDays: number;
};
