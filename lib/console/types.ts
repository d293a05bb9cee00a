// The waitlist and the audit log: their records and the repositories the store backends implement.
import type { KeyRecord } from "@/lib/auth/types";
import type { AUDIT_ACTIONS, WAITLIST_STATUSES } from "@/lib/schemas/admin";

export type WaitlistEntry = {
  email: string;
  useCase: string | null;
  createdAt: string;
};

export type WaitlistStatus = (typeof WAITLIST_STATUSES)[number];

export type WaitlistRecord = {
  id: string;
  email: string;
  useCase: string | null;
  createdAt: string;
  status: WaitlistStatus;
  /** The key issued on approval. */
  keyId: string | null;
  decidedAt: string | null;
};

export type WaitlistDecision = {
  /** The entry moves only from one of these statuses. */
  from: WaitlistStatus[];
  to: WaitlistStatus;
  keyId: string | null;
  at: string | null;
  /** Moves it only while it holds this key: undoing a claim never undoes someone else's. */
  ifKeyId?: string;
};

/** "conflict": the entry exists but is not in a status it may move from. */
export type DecisionOutcome = "ok" | "missing" | "conflict";

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = {
  id: string;
  at: string;
  action: AuditAction;
  /** What was acted on: a waitlist entry or key id, or "console". */
  target: string;
  /** The actor's address (entries from before 1.1 kept only its /24 or /48); null from the command line. */
  ip: string | null;
  /** How the actor was let in: "session", "token" or "cli". */
  actor: string;
  detail: string | null;
};

export type WaitlistQuery = {
  status?: WaitlistStatus;
  /** Matched case-insensitively (ASCII) as a substring of the email and of the use case. */
  search?: string;
  offset: number;
  limit: number;
};

export type WaitlistPage = {
  /** The page: entries in signup order. */
  entries: WaitlistRecord[];
  /** How many entries match, over all pages. */
  total: number;
  /** Every entry by status, whatever the query. */
  counts: Record<WaitlistStatus, number>;
};

/** The audit log keeps this many of the newest entries. */
export const AUDIT_KEEP = 10_000;

/** Every waitlist entry, on one backend: signups from the API, decisions from the console and the CLI. */
export interface WaitlistRepository {
  /** Adds the email unless present; returns whether it was new. */
  addToWaitlist(entry: WaitlistEntry): Promise<boolean>;
  /** Every entry, oldest first, each with an id and a status. */
  listWaitlist(): Promise<WaitlistRecord[]>;
  /** One page of the entries matching `q`, found and counted in the store (never the whole list in memory). */
  queryWaitlist(q: WaitlistQuery): Promise<WaitlistPage>;
  findWaitlistEntry(id: string): Promise<WaitlistRecord | null>;
  /** Moves an entry atomically: of two concurrent decisions from the same status, one gets "conflict". */
  decideWaitlistEntry(id: string, decision: WaitlistDecision): Promise<DecisionOutcome>;
  /**
   * Approves a pending or declined entry and stores its key, as one atomic change: "ok" only when both happened;
   * when the key cannot be stored the entry stays as it was.
   */
  approveWaitlistEntry(id: string, key: KeyRecord): Promise<DecisionOutcome>;
}

export interface AuditLog {
  appendAudit(entry: Omit<AuditEntry, "id">): Promise<void>;
  /** Newest first. */
  listAudit(limit: number): Promise<AuditEntry[]>;
}
