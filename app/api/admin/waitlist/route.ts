// GET /api/admin/waitlist – signups with their status; ?status, ?q (search), ?offset and ?limit; ?format=csv exports.

import { queryWaitlist, waitlistCsv } from "@/lib/console/waitlist";
import { waitlistEntryJson } from "@/lib/features/admin/answer";
import { parseQuery } from "@/lib/features/admin/parse";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import { waitlistQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ req, svc }) => {
  const q = parseQuery(req, waitlistQuerySchema);
  if (q.format === "csv") {
    // The export holds every match, not one page.
    const all = await queryWaitlist(svc, { status: q.status, search: q.q, offset: 0, limit: Number.MAX_SAFE_INTEGER });
    return new Response(waitlistCsv(all.entries), {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="waitlist${q.status ? `-${q.status}` : ""}.csv"`,
      },
    });
  }
  const page = await queryWaitlist(svc, { status: q.status, search: q.q, offset: q.offset, limit: q.limit });
  const next = q.offset + page.entries.length;
  return {
    entries: page.entries.map(waitlistEntryJson),
    total: page.total,
    counts: page.counts,
    offset: q.offset,
    next_offset: next < page.total ? next : null,
  };
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["GET"]);
