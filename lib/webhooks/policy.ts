// Every number that decides how webhooks go out, in one table: how many attempts run at once and how they are
// shared out, how long an attempt may take, and when a host that keeps timing out is left alone for a while.
import { normalizeHost } from "./url";

export const DELIVERY_POLICY = {
  /** Attempts in flight at once in one worker (one per instance). */
  concurrency: 8,
  /** Deliveries in flight at once for one key, across every worker: one tenant cannot hold every slot. */
  perKeyInFlight: 2,
  /** Deliveries in flight at once to one destination host, across every worker. */
  perHostInFlight: 2,
  /** The contract's deadline for a whole attempt: resolving, connecting, sending and reading the answer. */
  attemptTimeoutMs: 10_000,
  /** Deadline for the TCP (and TLS) connection, well inside the attempt's: a host that never accepts fails fast. */
  connectTimeoutMs: 3_000,
  breaker: {
    /** Attempts in a row to one host without an answer (timeouts, refused connections) that open its breaker. */
    failuresToOpen: 5,
    /** While open, attempts to the host are not made (recorded as refused, retried on the usual schedule). */
    openMs: 30_000,
  },
} as const;

/** The per-key and per-host caps, as the outbox's claim takes them. */
export const CLAIM_LIMITS = {
  perKey: DELIVERY_POLICY.perKeyInFlight,
  perHost: DELIVERY_POLICY.perHostInFlight,
} as const;

/** A delivery's destination host, as the caps and the breaker count it (no port: one machine, one budget). */
export function hostOf(url: string): string {
  try {
    return normalizeHost(new URL(url).hostname);
  } catch {
    return "";
  }
}
