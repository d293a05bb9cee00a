// A circuit breaker per key and destination host, in one worker (the contract's 1.3 amendment: one key's dead
// receiver never holds back another key's deliveries to the same host): after DELIVERY_POLICY.breaker.failuresToOpen
// attempts in a row without an answer (timeouts, failed connections) that key and host are left alone for openMs;
// then one attempt goes through as a probe (half-open). An answer, any status, closes it; no answer opens it again;
// a probe that was not sent after all (its URL refused) lets the next attempt probe instead.
import { DELIVERY_POLICY } from "./policy";

export type BreakerSettings = { failuresToOpen: number; openMs: number };

export type BreakerVerdict =
  | { allowed: true }
  /** `until`: Unix ms when a probe may go; `failures`: the attempts in a row without an answer that opened it. */
  | { allowed: false; until: number; failures: number };

type HostState = { failures: number; openUntil: number; probing: boolean };

export type HostBreaker = {
  /** Whether an attempt to `host` may be made now; a half-open host lets exactly one through. */
  check(host: string, now: number): BreakerVerdict;
  /** The outcome of an attempt `check` allowed: whether any answer came. */
  record(host: string, answered: boolean, now: number): void;
  /** An attempt `check` allowed was not made (refused before connecting): it tells nothing, and frees the probe. */
  release(host: string): void;
  /** Whether `host` is open now (for tests and metrics). */
  isOpen(host: string, now: number): boolean;
};

export function createHostBreaker(settings: BreakerSettings = DELIVERY_POLICY.breaker): HostBreaker {
  const hosts = new Map<string, HostState>();
  const stateOf = (host: string) => {
    let s = hosts.get(host);
    if (!s) {
      s = { failures: 0, openUntil: 0, probing: false };
      hosts.set(host, s);
    }
    return s;
  };
  return {
    check(host, now) {
      const s = hosts.get(host);
      if (!s || s.failures < settings.failuresToOpen) return { allowed: true };
      if (now < s.openUntil || s.probing) {
        return { allowed: false, until: Math.max(s.openUntil, now), failures: s.failures };
      }
      s.probing = true;
      return { allowed: true };
    },
    record(host, answered, now) {
      if (answered) {
        // Healthy hosts are forgotten, so the map only holds hosts that are failing.
        hosts.delete(host);
        return;
      }
      const s = stateOf(host);
      s.failures++;
      s.probing = false;
      if (s.failures >= settings.failuresToOpen) s.openUntil = now + settings.openMs;
    },
    release(host) {
      const s = hosts.get(host);
      if (s) s.probing = false;
    },
    isOpen(host, now) {
      const s = hosts.get(host);
      return !!s && s.failures >= settings.failuresToOpen && (now < s.openUntil || s.probing);
    },
  };
}
