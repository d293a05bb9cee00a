// GET /api/ready – readiness for load balancers: 200 when this instance can take work, else 503 with the reasons.
import { checkReadiness, storageAnswers } from "@/lib/ops/readiness";
import { describeRouteStates } from "@/lib/ops/route-states";
import { getServices } from "@/lib/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  let body: { ready: boolean; reasons: string[] };
  try {
    const svc = getServices();
    body = await checkReadiness({
      store: () => svc.backend.ping(),
      storage: () => storageAnswers(svc.storage),
      enhance: () => svc.enhancer.problem(),
      routes: describeRouteStates(svc.engines),
      enhanceChains: svc.enhanceRoutes.describe(),
      queues: Object.values(svc.queues).map((q) => ({
        name: q.name,
        concurrency: q.concurrency,
        maxQueued: q.maxQueued,
        ...q.stats,
      })),
    });
  } catch {
    // The services could not even be opened (a bad configuration, an unreadable DATA_DIR).
    body = { ready: false, reasons: ["The server could not open its services; see the server log."] };
  }
  return Response.json(
    { status: body.ready ? "ready" : "not_ready", reasons: body.reasons },
    { status: body.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
