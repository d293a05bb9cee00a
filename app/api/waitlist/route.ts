// POST /api/waitlist – join the Pro waitlist; open to anyone, signups limited per IP.
import { parseWaitlist } from "@/lib/features/waitlist/parse";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { joinWaitlist, WAITLIST_CONFIRMATION } from "@/lib/waitlist";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withApi("waitlist", async ({ req, svc, quota }) => {
  const signup = await parseWaitlist(req);
  await quota.take();
  await joinWaitlist(svc.waitlist, signup);
  return { success: true, message: WAITLIST_CONFIRMATION };
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
