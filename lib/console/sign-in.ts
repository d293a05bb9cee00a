// Admin credentials under attack: every presented token (on the sign-in form or as a Bearer) counts as an attempt
// of its address in a sliding hour, taken before the token is compared, so parallel guesses cannot pass the limit.
// A right token gives its attempt back and is accepted even past the limit (a 32+ character token cannot be
// guessed, so the limit only slows guessing and must never lock the operator out); past ten wrong ones an hour,
// wrong tokens are refused as rate limited. Failed sign-ins and the start of a lockout go to the audit log.
import { secretMatches } from "@/lib/auth/secret";
import { describeError, log } from "@/lib/log";
import { type OperatorCredential, observeWrongToken } from "@/lib/metrics";
import type { SlidingWindowCounter } from "@/lib/quota/sliding";
import type { Bucket, QuotaCounters, Take } from "@/lib/quota/types";
import { type Actor, audit } from "./actor";
import type { AuditLog } from "./types";

const HOUR_MS = 60 * 60 * 1000;
/** Ten wrong admin tokens per sliding hour per address. */
export const SIGN_IN_ATTEMPTS: Bucket = { name: "admin-sign-in", limit: 10, windowMs: HOUR_MS };
/**
 * At most this many failed-sign-in entries an hour reach the audit log, over all addresses: an attacker with many
 * addresses (a whole IPv6 /48) must not be able to push the operators' own actions out of it. The rest are logged.
 */
export const FAILURE_AUDITS: Bucket = { name: "admin-fail-audit", limit: 200, windowMs: HOUR_MS };

export type AttemptOutcome =
  | { ok: true }
  /** `locked`: past the limit; `retryAtMs`: when a wrong token may be tried again at the latest. */
  | { ok: false; locked: boolean; retryAtMs: number };

export type AttemptDeps = { attempts: SlidingWindowCounter; quota: QuotaCounters; audit: AuditLog };

/**
 * Counts one attempt with `presented` against `secret` for `identity` (take first, compare, give back when right).
 * Works for any secret whose attempts are limited per address (the cron secret too); each wrong one is counted in
 * /metrics under `credential`, and `onWrong` hears of it with whether it was refused as rate limited and whether it
 * was the one that reached the limit.
 */
export async function attemptSecret(
  deps: Pick<AttemptDeps, "attempts">,
  credential: OperatorCredential,
  bucket: Bucket,
  identity: string,
  presented: string | undefined,
  secret: string,
  onWrong?: (wrong: { locked: boolean; reachedLimit: boolean }) => Promise<void>,
): Promise<AttemptOutcome> {
  // Counted before the comparison; a store that cannot count refuses wrong secrets (fails closed), while the right
  // one, which the count exists to let through anyway, is still accepted.
  let take: Take | null = null;
  let failure: unknown;
  try {
    take = await deps.attempts.take(bucket, identity);
  } catch (err) {
    failure = err;
  }
  if (presented !== undefined && secretMatches(presented, secret)) {
    if (take) {
      await deps.attempts.refund(bucket, identity, take).catch((err: unknown) => {
        log.warn("could not give back a right secret's attempt", { bucket: bucket.name, ...describeError(err) });
      });
    }
    return { ok: true };
  }
  if (!take) throw failure;
  observeWrongToken(credential, take.ok ? "refused" : "rate_limited");
  await onWrong?.({ locked: !take.ok, reachedLimit: take.ok && take.remaining === 0 });
  return { ok: false, locked: !take.ok, retryAtMs: take.resetMs };
}

/** attemptSecret for the admin token, with failed sign-ins and lockouts written to the audit log. */
export async function attemptAdminToken(
  deps: AttemptDeps,
  actor: Actor,
  identity: string,
  presented: string | undefined,
  token: string,
): Promise<AttemptOutcome> {
  return attemptSecret(
    deps,
    "admin",
    SIGN_IN_ATTEMPTS,
    identity,
    presented,
    token,
    async ({ locked, reachedLimit }) => {
      const how = actor.via === "token" ? "a wrong Bearer token" : "a wrong token on the sign-in form";
      if (locked) {
        log.warn("admin sign-in refused: too many failures from this address", { client_ip: actor.ip, via: actor.via });
        return;
      }
      const allowed = await deps.quota.take(FAILURE_AUDITS, "all");
      if (!allowed.ok) {
        log.warn("admin sign-in failed (audit log full for this hour)", { client_ip: actor.ip, via: actor.via });
        return;
      }
      await audit(deps.audit, actor, "sign_in_failed", "console", how);
      if (reachedLimit) {
        await audit(
          deps.audit,
          actor,
          "lockout",
          "console",
          `${SIGN_IN_ATTEMPTS.limit} failed sign-ins within an hour: further wrong tokens from ${identity} are refused`,
        );
      }
    },
  );
}
