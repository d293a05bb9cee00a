// GET /api/usage?days=N – a Pro key's own daily usage (1 to 90 days, default 30), oldest first.

import { accountUsage } from "@/lib/console/usage";
import { parseDays } from "@/lib/features/admin/parse";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { daysQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const POLICY = { quota: "status", proOnly: "usage", guard: { bucket: "statusGuard", what: "usage" } } as const;

export const GET = withApi(POLICY, async ({ req, caller, svc, quota }) => {
  const keyId = caller.keyId as string; // the policy lets only Pro keys in
  const days = parseDays(req, daysQuerySchema);
  const [history, today] = await Promise.all([accountUsage(svc.usage, keyId, days), quota.read()]);
  return {
    success: true,
    ...history,
    daily_limit: quota.usage().limit,
    ...(today && {
      today: { used: today.used, remaining: today.remaining, reset_at: new Date(today.resetMs).toISOString() },
    }),
  };
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
