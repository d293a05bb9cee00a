// POST /api/admin/waitlist/approve – approve several entries at once ({ "ids": [...] }, at most 100); each result
// stands alone, so one entry already approved does not stop the others.

import { approveEntry } from "@/lib/console/waitlist";
import { issuedKeyJson } from "@/lib/features/admin/answer";
import { parseAdminBody } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { type BulkApproveView, bulkApproveSchema } from "@/lib/schemas/admin";
import { toApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withAdmin(async ({ req, requestId, svc, actor, appUrl }): Promise<BulkApproveView> => {
  const { ids } = await parseAdminBody(req, bulkApproveSchema);
  const results: BulkApproveView["results"] = [];
  // One at a time: each sends its own email, and the mail server should not see a burst.
  for (const id of new Set(ids)) {
    try {
      results.push({ id, ok: true as const, ...issuedKeyJson(await approveEntry(svc, id, actor, appUrl)) });
    } catch (err) {
      const e = toApiError(err, requestId);
      results.push({ id, ok: false as const, error: { code: e.code, message: e.message } });
    }
  }
  return { results };
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["POST"]);
