// GET /metrics – Prometheus text format, for a scraper holding METRICS_TOKEN as a Bearer: 404 while the token is
// unset (as if there were no such path), 401 on a missing or wrong one.
import { tierView } from "@/lib/console/overview";
import { tokenMatches } from "@/lib/http/admin-auth";
import { bearerToken } from "@/lib/http/bearer";
import { observeWrongToken, renderMetrics } from "@/lib/metrics";
import { describeEnhanceRouteStates, describeRouteStates } from "@/lib/ops/route-states";
import { getServices } from "@/lib/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  // The services also build the work queues, whose gauges the scrape reads.
  const svc = getServices();
  const token = svc.config.metricsToken;
  if (!token) return text(404, "Not found.\n");
  const presented = bearerToken(req);
  if (presented === undefined || !tokenMatches(presented, token)) {
    if (presented !== undefined) observeWrongToken("metrics", "refused");
    return text(401, "Send METRICS_TOKEN as a Bearer token.\n", { "WWW-Authenticate": 'Bearer realm="metrics"' });
  }
  const live = {
    routes: [...describeRouteStates(svc.engines), ...describeEnhanceRouteStates(svc.enhanceRoutes.describe())],
    pools: svc.engines.describeGpuPools(),
    tier: svc.tier.kind === "inline" ? undefined : await tierView(svc.tier),
  };
  const { contentType, body } = await renderMetrics(live);
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}
