// GET /api/admin/keys – every key with its usage; POST /api/admin/keys – a new key, shown once.
import { issuedKeyJson } from "@/lib/api/admin-views";
import { parseAdminBody } from "@/lib/api/parse-admin";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/api/with-admin";
import { createConsoleKey, listKeyViews } from "@/lib/console/keys";
import { createKeySchema, type IssuedKeyView, type KeyListView } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ svc }): Promise<KeyListView> => ({ keys: await listKeyViews(svc) }));

export const POST = withAdmin(async ({ req, svc, actor, appUrl }): Promise<IssuedKeyView> => {
  const body = await parseAdminBody(req, createKeySchema);
  const label = body.label ?? body.email ?? "";
  return issuedKeyJson(
    await createConsoleKey(svc, { label, email: body.email, dailyLimit: body.daily_limit }, actor, appUrl),
  );
});

export const { PUT, PATCH, DELETE } = rejectOtherAdminMethods(["GET", "POST"]);
