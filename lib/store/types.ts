// What each backend offers today, composed from the domains' ports.
import type { KeyRecord } from "@/lib/auth/types";
import type { AuditEntry, DecisionOutcome, WaitlistDecision, WaitlistEntry, WaitlistRecord } from "@/lib/console/types";
import type { QuotaCounters } from "@/lib/quota/types";

export interface Store extends QuotaCounters {
  readonly kind: "sqlite" | "upstash";
  insertKey(key: KeyRecord): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyRecord | null>;
  listKeys(): Promise<KeyRecord[]>;
  /** Returns false when no key has that id. Revoking twice keeps the first time. */
  revokeKey(id: string, at: string): Promise<boolean>;

  /** Adds the email unless present; returns whether it was new. */
  addToWaitlist(entry: WaitlistEntry): Promise<boolean>;
  listWaitlist(): Promise<WaitlistEntry[]>;

  /** Cheap health probe for /api/status; false when the backend is unreachable. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ConsoleStore {
  /** Every entry, oldest first, each with an id and a status. */
  listWaitlist(): Promise<WaitlistRecord[]>;
  findWaitlistEntry(id: string): Promise<WaitlistRecord | null>;
  /** Moves an entry atomically: of two concurrent decisions from the same status, one gets "conflict". */
  decideWaitlistEntry(id: string, decision: WaitlistDecision): Promise<DecisionOutcome>;

  findKey(id: string): Promise<KeyRecord | null>;
  /** null returns the key to the default limit. False when no key has that id. */
  setKeyDailyLimit(id: string, limit: number | null): Promise<boolean>;
  /** Stores `secret` unless the key already has one, and returns the key's secret (null: no such key). */
  ensureWebhookSecret(id: string, secret: string): Promise<string | null>;

  appendAudit(entry: Omit<AuditEntry, "id">): Promise<void>;
  /** Newest first. */
  listAudit(limit: number): Promise<AuditEntry[]>;

  close(): Promise<void>;
}
