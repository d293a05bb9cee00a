// Each model's routes and whether they can take work: `failing` as /api/status says it (the last calls all failed,
// or the GPU pool has every server out), and `ejected` for readiness: failing now, within the same 30 s time-out a
// GPU server gets. A provider outage does not keep an instance out of rotation forever after nobody can call it.
import type { Engines } from "@/lib/engines";
import type { PoolDescription } from "@/lib/engines/local";
import { EJECT_MS, everyServerOut } from "@/lib/engines/local/pool";
import type { EnhanceChainState } from "@/lib/enhance/routes/remote-chain";

export type RouteState = { model: string; route: string; failing: boolean; ejected: boolean };

export function describeRouteStates(
  engines: Pick<Engines, "describe" | "describeGpuPools" | "routeHealth">,
  now = Date.now(),
): RouteState[] {
  const pools: PoolDescription[] = engines.describeGpuPools();
  const allOut = new Set<string>(pools.filter((p) => everyServerOut(p.servers)).map((p) => p.kind));
  return engines.describe().flatMap((m) =>
    m.routes.map((r) => {
      const poolOut = allOut.has(r.route.split(":")[0]);
      const lastFailure = r.failing ? Date.parse(engines.routeHealth(r.route).lastFailureAt ?? "") : Number.NaN;
      return {
        model: m.name,
        route: r.route,
        failing: r.failing || poolOut,
        ejected: poolOut || now - lastFailure < EJECT_MS,
      };
    }),
  );
}

/** The enhance modes' cloud and GPU routes as /metrics lists routes, under "enhance:<mode>" (onnx steps run in process). */
export function describeEnhanceRouteStates(
  chains: EnhanceChainState[],
): { model: string; route: string; failing: boolean }[] {
  return chains.flatMap((c) =>
    c.routes
      .filter((r) => !r.route.startsWith("onnx:"))
      .map((r) => ({ model: `enhance:${c.mode}`, route: r.route, failing: r.failing })),
  );
}
