// POST /api/admin/waitlist/{id}/decline – decline a pending entry.

import { declineEntry } from "@/lib/console/waitlist";
import { waitlistEntryJson } from "@/lib/features/admin/answer";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";

import type { WaitlistEntryView } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withAdmin(
  async ({ svc, params, actor }): Promise<WaitlistEntryView> =>
    waitlistEntryJson(await declineEntry(svc, params.id, actor)),
);

export const { GET, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["POST"]);
