// POST /api/admin/keys/{id}/revoke – revoke a key; its next request is refused.
import { rejectOtherAdminMethods, withAdmin } from "@/lib/api/with-admin";
import { revokeConsoleKey } from "@/lib/console/keys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withAdmin(async ({ svc, params, actor }) => revokeConsoleKey(svc, params.id, actor));

export const { GET, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["POST"]);
