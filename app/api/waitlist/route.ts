// POST /api/waitlist – join the Pro waitlist; open to anyone.
import { errorResponse, newRequestId, rejectOtherMethods, respond } from "@/lib/api/with-api";
import { getServices } from "@/lib/services";
import { emptyUsage, type Usage } from "@/lib/store/types";
import { joinWaitlist } from "@/lib/waitlist";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  const requestId = newRequestId();
  const svc = getServices();
  let usage: Usage = emptyUsage(svc.buckets.waitlistSignups);
  try {
    const body = await joinWaitlist(req, svc, (u) => (usage = u));
    return respond(200, body, requestId, usage);
  } catch (err) {
    return errorResponse(err, requestId, usage);
  }
}

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
