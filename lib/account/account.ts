// One call's account, whatever entry point it came through (an /api route, an MCP tool): the quota it takes on the
// caller's buckets, its Idempotency-Key, its line in the usage history, and how a failed call settles them. The HTTP
// wrapper (lib/http/with-api.ts) and the MCP tools (lib/features/mcp) open and settle calls the same way.
import type { Caller } from "@/lib/auth/types";
import { ShuttingDown } from "@/lib/errors";
import { Idempotency } from "@/lib/idempotency/idempotency";
import { readImageBytes } from "@/lib/images/library";
import { observeQuotaRefusal } from "@/lib/metrics";
import { chargesFor, Quota, refundUnits, waitlistCharges } from "@/lib/quota/ledger";
import type { Endpoint } from "@/lib/quota/policies";
import { ApiError, toApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";
import { usageRecorderFor } from "@/lib/usage/recording";

/** The daily bucket a call takes from or reports on; "waitlist" counts signups per address. */
export type AccountBucket = Endpoint | "waitlist";

type AccountServices = Pick<Services, "quota" | "buckets" | "idempotency" | "storage" | "config" | "usage">;

/** What opening a call also needs: the drain, which turns a call away while the server shuts down. */
type OpeningServices = AccountServices & Pick<Services, "drain">;

/** The call's quota on the caller's buckets for `bucket`; `abandoned` tells it the caller has gone. */
function quotaFor(svc: AccountServices, caller: Caller, bucket: AccountBucket, abandoned: () => boolean): Quota {
  const charges =
    bucket === "waitlist" ? waitlistCharges(svc.buckets, caller) : chargesFor(svc.buckets, bucket, caller);
  return new Quota(svc.quota, charges, abandoned);
}

/** The call's Idempotency-Key (`key` null: none was sent, and the call is not kept). */
function idempotencyFor(svc: AccountServices, caller: Caller, bucket: AccountBucket, key: string | null): Idempotency {
  return new Idempotency(svc.idempotency, caller, bucket, key, {
    leaseMs: svc.config.idempotency.leaseMs,
    refund: (units) => refundUnits(svc.quota, units),
    readImage: (id) => readImageBytes(svc.storage, id, Number.MAX_SAFE_INTEGER),
  });
}

/** The recorder of the call's line in the usage history (see usageRecorderFor); `makes` is false for reads. */
function usageRecorderOf(
  svc: AccountServices,
  caller: Caller,
  bucket: AccountBucket,
  quota: Quota,
  makes: boolean,
): ((answer: unknown) => Promise<void>) | undefined {
  return usageRecorderFor(svc, { method: makes ? "POST" : "GET" }, bucket, caller, quota.noted);
}

/** What a call has opened so far: a failure settles whichever of these exist. */
export type OpenedCall = {
  requestId: string;
  plan: string;
  quota?: Quota;
  idempotency?: Idempotency;
  /** The usage history (console). */
  recordUsage?: (answer: unknown) => Promise<void>;
  /** The server's shutdown: work it stopped fails as the shutdown (503 busy, Retry-After). */
  stopping?: AbortSignal;
};

/**
 * Opens a call's account in order, noting each part in `opened` as soon as it exists so that a failure settles
 * what was opened: its quota on the caller's buckets; the drain's refusal (a call arriving while the server shuts
 * down is turned away before any work); its Idempotency-Key, which the quota follows; its usage line.
 */
export function openAccount(
  svc: OpeningServices,
  opened: OpenedCall,
  caller: Caller,
  bucket: AccountBucket,
  call: { abandoned: () => boolean; idempotencyKey: string | null; makes: boolean },
): { quota: Quota; idempotency: Idempotency } {
  const quota = quotaFor(svc, caller, bucket, call.abandoned);
  opened.quota = quota;
  if (svc.drain.draining) throw new ShuttingDown();
  const idempotency = idempotencyFor(svc, caller, bucket, call.idempotencyKey);
  opened.idempotency = idempotency;
  quota.follow(idempotency.holding);
  opened.recordUsage = usageRecorderOf(svc, caller, bucket, quota, call.makes);
  return { quota, idempotency };
}

/**
 * Settles a call that failed with `err`, as the contract's error it answers: the quota's units go back, the key is
 * freed, the refusal is counted and the usage recorded. A store error while settling never replaces the answer.
 */
export async function settleFailure(err: unknown, call: OpenedCall, bucket: AccountBucket): Promise<ApiError> {
  const { requestId, quota, idempotency, recordUsage, stopping } = call;
  // Work stopped by a shutdown fails as the shutdown, whatever the engine made of it.
  const apiError = toApiError(stopping?.aborted && !(err instanceof ApiError) ? stopping.reason : err, requestId);
  if (apiError.code === "rate_limited") observeQuotaRefusal(call.plan, bucket);
  await quota?.fail().catch((e) => toApiError(e, requestId));
  await idempotency?.release().catch((e) => toApiError(e, requestId));
  // A repeat refused for its Idempotency-Key is the first request again, counted once already.
  if (!apiError.code.startsWith("idempotency_")) await recordUsage?.(apiError.status);
  return apiError;
}
