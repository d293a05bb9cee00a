// Per-route health in process memory: the last few outcomes, so /api/status can say "degraded" while a provider fails.
import { processSingleton } from "@/lib/singleton";

const WINDOW = 3;
// One per process, not per module: Next may bundle this module once per route; generate and status must share it.
const ringsOf = () => processSingleton("route-health", () => new Map<string, boolean[]>());

export function recordOutcome(routeId: string, ok: boolean): void {
  const rings = ringsOf();
  const ring = rings.get(routeId) ?? [];
  ring.push(ok);
  if (ring.length > WINDOW) ring.shift();
  rings.set(routeId, ring);
}

/** True when the route's last WINDOW calls all failed. */
export function isRouteFailing(routeId: string): boolean {
  const ring = ringsOf().get(routeId);
  return ring !== undefined && ring.length === WINDOW && ring.every((ok) => !ok);
}
