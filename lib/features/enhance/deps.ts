// What an enhancement needs from this process's services besides the signal and the hooks, built the same way for a
// request run inline and for a job run by either tier, so both decode within the same queue and pixel budget.
import type { EnhanceDeps } from "@/lib/enhance/enhance";
import type { RecordDeps } from "@/lib/images/library";
import type { Services } from "@/lib/services";

export function enhanceDeps(
  svc: Services,
  request: { requestId: string; origin: string },
  records: RecordDeps,
): Omit<EnhanceDeps, "signal"> {
  return {
    requestId: request.requestId,
    origin: request.origin,
    storage: svc.storage,
    queue: svc.queues.enhance,
    pixels: svc.pixels,
    config: svc.config,
    enhancer: svc.enhancer,
    routes: svc.enhanceRoutes,
    ...records,
  };
}
