// Per-route health in process memory: the recent outcomes and their latencies, so /api/status can say "degraded"
// while a provider fails and the operators' console can show each route's failures and p50/p95 latency. The
// composition root holds one book per process (inside its Engines).

/** A route whose last WINDOW calls all failed is failing. */
const WINDOW = 3;
/** Calls kept per route for the console's figures. */
const KEEP = 100;

type Sample = { ok: boolean; ms: number; at: number };

export type HealthBook = {
  /** `ms`: how long the call took, when known. */
  record(routeId: string, ok: boolean, ms?: number): void;
  /** True when the route's last WINDOW calls all failed. */
  isFailing(routeId: string): boolean;
  /** The recent calls of a route in this process. */
  of(routeId: string): RouteHealth;
};

export function createHealthBook(): HealthBook {
  const rings = new Map<string, Sample[]>();
  return {
    record(routeId, ok, ms = Number.NaN) {
      const ring = rings.get(routeId) ?? [];
      ring.push({ ok, ms, at: Date.now() });
      if (ring.length > KEEP) ring.shift();
      rings.set(routeId, ring);
    },
    isFailing(routeId) {
      const recent = rings.get(routeId)?.slice(-WINDOW);
      return recent !== undefined && recent.length === WINDOW && recent.every((s) => !s.ok);
    },
    of: (routeId) => summarize(rings.get(routeId) ?? []),
  };
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

function summarize(ring: Sample[]): RouteHealth {
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
