// The contract's order for uploads: what needs no body, then the quota, then the body. A caller with nothing left is
// refused before it sends its body, so it holds no upload slot and no memory.
import type { Idempotency } from "@/lib/idempotency/idempotency";
import type { Quota } from "@/lib/quota/ledger";

/**
 * Peeks the caller's quota for `units` and throws its 429 when they are not there. A request whose Idempotency-Key
 * already has a record may be the replay of an answer already paid for, which costs nothing: it is read (within the
 * caller's upload limits and deadlines) and settled after. A new key is no way past the peek.
 */
export async function refuseSpentCaller(idempotency: Idempotency, quota: Quota, units = 1): Promise<void> {
  if (await idempotency.recorded()) return;
  await quota.assertLeft(units);
}
