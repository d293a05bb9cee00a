// GET /api/account – a Pro key's own record and its webhook signing secret.
import { requireProCaller } from "@/lib/api/require-pro";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { webhookSecretOf } from "@/lib/console/keys";
import { NotFound } from "@/lib/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withApi("status", async ({ caller, svc }) => {
  const keyId = await requireProCaller(caller, svc, "account");
  const key = await svc.keys.findKey(keyId);
  if (!key) throw new NotFound("No key with that id.");
  return {
    success: true,
    key: {
      id: key.id,
      label: key.label,
      last4: key.last4,
      created_at: key.createdAt,
      daily_limit: key.dailyLimit ?? svc.buckets.proRequests.limit,
      email: key.email ?? null,
    },
    webhook_secret: await webhookSecretOf(svc, key),
  };
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
