// Per-minute guards for the reads that use no daily quota (status, and later account and job reads).
import type { Caller } from "@/lib/auth/types";
import { StoreUnavailable } from "@/lib/errors";
import type { WindowCounter } from "@/lib/quota/memory-window";
import type { Bucket } from "@/lib/quota/types";
import { secondsUntil } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";

/**
 * Counts one call on the caller's per-minute guard; 429 past it. Fails open while the store is down, so status can
 * still answer "degraded".
 */
export async function enforceCallGuard(counter: WindowCounter, bucket: Bucket, caller: Caller, what: string) {
  const guard = await counter.take(bucket, caller.identity).catch((err) => {
    if (err instanceof StoreUnavailable) return null;
    throw err;
  });
  if (guard && !guard.ok) {
    throw new ApiError("rate_limited", `Too many ${what} calls: at most ${guard.limit} per minute.`, {
      retryAfter: secondsUntil(guard.resetMs),
    });
  }
}
