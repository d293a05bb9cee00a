// GET /api/admin/usage?days=N – daily series per plan, endpoint, model, engine and outcome; ?key_id= for one key.

import { adminUsage } from "@/lib/console/usage";
import { parseDays } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { type AdminUsageView, daysQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ req, svc }): Promise<AdminUsageView> => {
  const days = parseDays(req, daysQuerySchema);
  const keyId = new URL(req.url).searchParams.get("key_id")?.slice(0, 64) || undefined;
  return { ...(await adminUsage(svc.usage, days, keyId)), ...(keyId && { key_id: keyId }) };
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["GET"]);
