// GET /api/admin/audit – every admin action, newest first: time, action, target, the actor's IP (and its network).
import { auditEntryJson } from "@/lib/features/admin/answer";
import { parseQuery } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { type AuditListView, auditQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ req, svc }): Promise<AuditListView> => {
  const { limit } = parseQuery(req, auditQuerySchema);
  return { entries: (await svc.audit.listAudit(limit)).map(auditEntryJson) };
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["GET"]);
