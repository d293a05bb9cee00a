// The webhook outbox: deliveries waiting for their next attempt, kept in the store so they survive a restart.
// SQLite (lib/store/sqlite/outbox.ts) and Redis (lib/store/redis/outbox.ts) both implement it.
//
// A worker claims due deliveries with a lease: a claimed delivery is not due again until the lease runs out, so
// while it holds, no other worker (in this process or another instance) attempts it. A worker that dies mid-attempt
// leaves its deliveries to be claimed again when the lease ends; that attempt may then reach the receiver twice,
// which at-least-once delivery allows (the webhook-id stays the same, so the receiver can tell).
//
// Claims are fair (lib/webhooks/policy.ts): first attempts before retries, round-robin across keys, and never more
// than a few deliveries in flight per key, per key and destination host, or per host, so one tenant's slow receiver
// cannot hold every slot, nor another tenant's slots on the same host. However long one key's backlog, another
// key's due delivery is claimed within a round of the keys.

export type NewDelivery = {
  /** The webhook-id, stable across retries. */
  id: string;
  jobId: string;
  /** The key whose job this is (its tenant); deliveries are shared out fairly between keys. */
  keyId: string;
  url: string;
  /** The URL's host name, lower case (hostOf): deliveries in flight to one host are capped. */
  host: string;
  /** The `whsec_…` secret each attempt is signed with. */
  secret: string;
  /** The exact bytes to POST (JSON text). */
  body: string;
  /** Unix ms of the first attempt. */
  nextAttemptAt: number;
  /** Unix ms. */
  createdAt: number;
};

export type Delivery = NewDelivery & {
  /** Attempts made so far. */
  attempts: number;
  /** The status of the last answer, or null when there was none (or no attempt yet). */
  lastStatus: number | null;
};

export type ClaimedDelivery = Delivery & {
  /** Proves the claim when the attempt is recorded; a stale claim records nothing. */
  lease: string;
};

/** What an attempt leaves behind: another attempt later, or nothing more to do. */
export type AttemptRecord = {
  attempts: number;
  lastStatus: number | null;
  /** Unix ms of the next attempt, or null when the delivery is finished (delivered, or given up). */
  retryAt: number | null;
};

/**
 * How many deliveries may be in flight (leased, lease not run out) at once, across every worker: per key, per key
 * and destination host, and per host for all keys together.
 */
export type ClaimLimits = { perKey: number; perKeyHost: number; perHost: number };

export interface WebhookOutbox {
  readonly kind: "sqlite" | "upstash";
  /** Stores a delivery; adding an id that is already there changes nothing. */
  enqueue(delivery: NewDelivery): Promise<void>;
  /**
   * Leases up to `limit` deliveries due at `now` until `now + leaseMs`, and returns them: first attempts before
   * retries, then round-robin across keys, oldest first within a key; never so many that a key, a key and host, or
   * a host has more than `caps` (default DELIVERY_POLICY's) allow in flight. Two concurrent calls never return the
   * same delivery while its lease holds.
   */
  claimDue(now: number, leaseMs: number, limit: number, caps?: ClaimLimits): Promise<ClaimedDelivery[]>;
  /**
   * Records a claimed delivery's attempt: with `retryAt`, it becomes due again then; without, it is finished and
   * removed. Returns false, recording nothing, when the lease is no longer this claim's.
   */
  recordAttempt(id: string, lease: string, record: AttemptRecord): Promise<boolean>;
  /** One delivery as stored, or null once it is finished (or never was). */
  get(id: string): Promise<Delivery | null>;
  close(): Promise<void>;
}
