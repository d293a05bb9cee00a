// GET /api/admin/keys/{id} – one key; PATCH /api/admin/keys/{id} – its daily limit ({ "daily_limit": n | null }).

import { setKeyLimit, viewKey } from "@/lib/console/keys";
import { parseAdminBody } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { type KeyView, patchKeySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ svc, params }): Promise<KeyView> => viewKey(svc, params.id));

export const PATCH = withAdmin(async ({ req, svc, params, actor }): Promise<KeyView> => {
  const { daily_limit } = await parseAdminBody(req, patchKeySchema);
  return setKeyLimit(svc, params.id, daily_limit, actor);
});

export const { POST, PUT, DELETE } = rejectOtherAdminMethods(["GET", "PATCH"]);
