// Per-route health in process memory: the last few outcomes, so /api/status can say "degraded" while a provider fails.
const WINDOW = 3;
const KEY = Symbol.for("darkroom.route-health");
type Holder = { [KEY]?: Map<string, boolean[]> };

// On globalThis because Next may bundle this module once per route; generate and status must share it.
function ringsOf(): Map<string, boolean[]> {
  const holder = globalThis as Holder;
  holder[KEY] ??= new Map();
  return holder[KEY];
}

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
