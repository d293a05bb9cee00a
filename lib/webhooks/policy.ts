// Every number that decides how webhooks go out, in one table: how many attempts run at once and how they are
// shared out, how long an attempt may take, and when a host that keeps timing out is left alone for a while.
import { normalizeHost } from "./url";

export const DELIVERY_POLICY = {
  /** Attempts in flight at once in one worker (one per instance). */
  concurrency: 8,
  /** Deliveries in flight at once for one key, across every worker: one tenant cannot hold every slot. */
  perKeyInFlight: 4,
  /**
   * Deliveries in flight at once for one key to one destination host: a key's slow receiver holds these, not the
   * key's other receivers' slots, nor any slot of another key on the same host (a relay many tenants share).
   */
  perKeyHostInFlight: 2,
  /** Deliveries in flight at once to one destination host for all keys together (the contract: at least 16). */
  perHostInFlight: 16,
  /** The contract's deadline for a whole attempt: resolving, connecting, sending and reading the answer. */
  attemptTimeoutMs: 10_000,
  /** Deadline for the TCP (and TLS) connection, well inside the attempt's: a host that never accepts fails fast. */
  connectTimeoutMs: 3_000,
  breaker: {
    /**
     * Attempts in a row without an answer (timeouts, refused connections) for one key to one host that open the
     * breaker of that key and host; another key's deliveries to the same host are not held back by it.
     */
    failuresToOpen: 5,
    /** While open, attempts are not made; the deliveries wait for it to close and keep their retry schedule. */
    openMs: 30_000,
  },
} as const;

/** The caps per key, per key and host, and per host, as the outbox's claim takes them. */
export const CLAIM_LIMITS = {
  perKey: DELIVERY_POLICY.perKeyInFlight,
  perKeyHost: DELIVERY_POLICY.perKeyHostInFlight,
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
