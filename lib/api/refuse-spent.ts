// The contract's order for uploads: what needs no body, then the quota, then the body. A caller with nothing left is
// refused before it sends its body, so it holds no upload slot and no memory.
import type { Quota } from "@/lib/quota/ledger";

/**
 * Peeks the caller's quota for `units` and throws its 429 when they are not there. A request with an
 * Idempotency-Key may be the replay of an answer already paid for, which costs nothing: it is read (within the
 * caller's upload limits and deadlines) and settled after.
 */
export async function refuseSpentCaller(req: Request, quota: Quota, units = 1): Promise<void> {
  if (req.headers.get("idempotency-key") !== null) return;
  await quota.assertLeft(units);
}
