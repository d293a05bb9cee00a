// POST /api/admin/waitlist/{id}/approve – a Pro key for the entry's email, shown once (and emailed when mail is set).

import { approveEntry } from "@/lib/console/waitlist";
import { issuedKeyJson } from "@/lib/features/admin/answer";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";

import type { IssuedKeyView } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withAdmin(
  async ({ svc, params, actor, appUrl }): Promise<IssuedKeyView> =>
    issuedKeyJson(await approveEntry(svc, params.id, actor, appUrl)),
);

export const { GET, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["POST"]);
