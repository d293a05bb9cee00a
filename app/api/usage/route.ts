// GET /api/usage?days=N – a Pro key's own daily usage (1 to 90 days, default 30), oldest first.
import { parseDays } from "@/lib/api/parse-admin";
import { requireProCaller } from "@/lib/api/require-pro";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { accountUsage } from "@/lib/console/usage";
import { daysQuerySchema } from "@/lib/schemas/admin";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withApi("status", async ({ req, caller, svc, quota }) => {
  const keyId = await requireProCaller(caller, svc, "usage");
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
