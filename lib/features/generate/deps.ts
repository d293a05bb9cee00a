// What generating needs from this process's services besides the signal and the hooks, built the same way for a
// request run inline and for a job run by either tier.
import type { GenerateDeps } from "@/lib/engines/generate";
import type { RecordDeps } from "@/lib/images/library";
import type { Services } from "@/lib/services";

/** What generateImages needs besides the signal and the hooks. */
export function generateDeps(
  svc: Services,
  request: { requestId: string; origin: string },
  records: RecordDeps,
): Omit<GenerateDeps, "signal"> {
  return {
    requestId: request.requestId,
    origin: request.origin,
    engines: svc.engines,
    storage: svc.storage,
    queue: svc.queues.generate,
    ...records,
  };
}
