// Per-route health in process memory: the recent outcomes and their latencies, so /api/status can say "degraded"
// while a provider fails and the operators' console can show each route's failures and p50/p95 latency.
import { processSingleton } from "@/lib/singleton";

/** A route whose last WINDOW calls all failed is failing. */
const WINDOW = 3;
/** Calls kept per route for the console's figures. */
const KEEP = 100;

type Sample = { ok: boolean; ms: number; at: number };

// One per process, not per module: Next may bundle this module once per route; generate and status must share it.
const ringsOf = () => processSingleton("route-health", () => new Map<string, Sample[]>());

/** `ms`: how long the call took, when known. */
export function recordOutcome(routeId: string, ok: boolean, ms = Number.NaN): void {
  const rings = ringsOf();
  const ring = rings.get(routeId) ?? [];
  ring.push({ ok, ms, at: Date.now() });
  if (ring.length > KEEP) ring.shift();
  rings.set(routeId, ring);
}

/** True when the route's last WINDOW calls all failed. */
export function isRouteFailing(routeId: string): boolean {
  const recent = ringsOf().get(routeId)?.slice(-WINDOW);
  return recent !== undefined && recent.length === WINDOW && recent.every((s) => !s.ok);
}

export type RouteHealth = {
  /** Calls kept (the last 100 at most), and how many of them failed. */
  calls: number;
  failures: number;
  /** The outcomes of the last calls, oldest first. */
  recent: boolean[];
  lastFailureAt: string | null;
  p50Ms: number | null;
  p95Ms: number | null;
};

/** The recent calls of a route in this process. */
export function routeHealth(routeId: string): RouteHealth {
  const ring = ringsOf().get(routeId) ?? [];
  const times = ring
    .map((s) => s.ms)
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  const at = (p: number) =>
    times.length ? Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]) : null;
  const lastFailure = ring.findLast((s) => !s.ok);
  return {
    calls: ring.length,
    failures: ring.filter((s) => !s.ok).length,
    recent: ring.slice(-20).map((s) => s.ok),
    lastFailureAt: lastFailure ? new Date(lastFailure.at).toISOString() : null,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
  };
}
