// GET /api/account – a Pro key's own record and its webhook signing secret.

import { webhookSecretOf } from "@/lib/console/keys";
import { NotFound } from "@/lib/errors";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const POLICY = { quota: "status", proOnly: "account", guard: { bucket: "statusGuard", what: "account" } } as const;

export const GET = withApi(POLICY, async ({ caller, svc }) => {
  // The policy lets only Pro keys in.
  const key = await svc.keys.findKey(caller.keyId as string);
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
