// DELETE /api/admin/sessions – sign out everywhere: every console session ends on the server, this one included.
// Bearer calls are not sessions and keep working (to end those, change ADMIN_TOKEN, which ends every session too).

import { audit } from "@/lib/console/actor";
import { clearedSessionCookie } from "@/lib/http/admin-auth";
import { isSecureRequest } from "@/lib/http/identify";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { respond } from "@/lib/http/with-api";
import type { SessionsEnded } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = withAdmin(async ({ req, requestId, svc, actor }) => {
  const ended = await svc.sessions.deleteAllSessions();
  await audit(svc.audit, actor, "sign_out_everywhere", "console", `${ended} session(s) ended`);
  const body: SessionsEnded = { signed_in: false, sessions_ended: ended };
  const res = respond(200, { success: true, ...body }, requestId);
  res.headers.append("Set-Cookie", clearedSessionCookie(isSecureRequest(req, svc)));
  return res;
});

export const { GET, POST, PUT, PATCH } = rejectOtherAdminMethods(["DELETE"]);
