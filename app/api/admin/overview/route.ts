// GET /api/admin/overview – provider route health, queue depth now and today's use of the Free plan's global caps.

import { consoleOverview } from "@/lib/console/overview";
import { rejectOtherAdminMethods, withAdmin } from "@/lib/http/with-admin";
import type { OverviewView } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withAdmin(async ({ svc }): Promise<OverviewView> => ({ ...(await consoleOverview(svc)) }));

export const { POST, PUT, PATCH, DELETE } = rejectOtherAdminMethods(["GET"]);
