// Async requests: whether the caller asked for one (Prefer: respond-async, or a webhook), and accepting a job with
// the contract's 202.
import type { Caller } from "@/lib/auth/types";
import type { JobKind } from "@/lib/jobs/types";
import type { Quota } from "@/lib/quota/ledger";
import { ApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";
import type { JobTask } from "@/lib/tier/types";
import { checkWebhookUrl } from "@/lib/webhooks";

export type AsyncMode = { async: false } | { async: true; webhookUrl?: string };

/** RFC 7240: the preference may come with others, in any case, in one or several Prefer headers. */
export function prefersAsync(req: Request): boolean {
  return (req.headers.get("prefer") ?? "")
    .split(",")
    .some((p) => p.split(";")[0].trim().toLowerCase() === "respond-async");
}

/**
 * The call's mode (`prefers`: the caller asked for a job); a webhook implies async and needs a Pro key and an https
 * URL on a public address.
 */
export function asyncModeOf(
  prefers: boolean,
  caller: Caller,
  webhookUrl: string | undefined,
  allowHosts: readonly string[],
): AsyncMode {
  if (webhookUrl === undefined) return prefers ? { async: true as const } : { async: false as const };
  if (caller.plan !== "pro") {
    throw new ApiError("invalid_webhook_url", "webhook_url needs a Pro key (Authorization: Bearer <key>).");
  }
  return { async: true as const, webhookUrl: checkWebhookUrl(webhookUrl, allowHosts).toString() };
}

/** A job accepted: its id, the contract's 202 answer, and when it settles. */
export type AcceptedJob = { id: string; response: Response; done: Promise<void> };

/**
 * Accepts the work as a job holding the request's units, hands it to the work tier, and answers 202 with where to
 * follow it.
 */
export async function acceptJob(
  svc: Pick<Services, "runner" | "tier">,
  input: { kind: JobKind; caller: Caller; quota: Quota; webhookUrl?: string; origin: string },
  task: JobTask,
): Promise<AcceptedJob> {
  const record = svc.runner.newRecord({
    kind: input.kind,
    owner: input.caller.identity,
    units: input.quota.heldUnits(),
    webhookUrl: input.webhookUrl,
    keyId: input.caller.keyId,
    plan: input.caller.plan,
    model: input.quota.noted.model,
  });
  const { done } = await input.quota.handOff(() => svc.tier.accept(record, task));
  const location = `/api/jobs/${record.id}`;
  const body = {
    success: true,
    id: record.id,
    status: record.status,
    status_url: `${input.origin}${location}`,
    events_url: `${input.origin}${location}/events`,
  };
  const response = new Response(JSON.stringify(body), {
    status: 202,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Preference-Applied": "respond-async",
      Location: location,
    },
  });
  return { id: record.id, response, done };
}
