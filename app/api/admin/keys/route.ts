// GET /api/admin/keys – every key with its usage; POST /api/admin/keys – a new key, shown once.

import { createConsoleKey, listKeyViews } from "@/lib/console/keys";
import { issuedKeyJson } from "@/lib/features/admin/answer";
import { parseAdminBody } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
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
