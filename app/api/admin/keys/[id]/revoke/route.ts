// POST /api/admin/keys/{id}/revoke – revoke a key; its next request is refused. With ?delete_images=true, every
// image the key made is deleted too (the answer counts them in images_deleted).

import { revokeConsoleKey } from "@/lib/console/keys";
import { parseQuery } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { type RevokedKeyView, revokeQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withAdmin(async ({ req, svc, params, actor }): Promise<RevokedKeyView> => {
  const { delete_images } = parseQuery(req, revokeQuerySchema);
  return revokeConsoleKey(svc, params.id, actor, { deleteImages: delete_images === "true" });
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["POST"]);
