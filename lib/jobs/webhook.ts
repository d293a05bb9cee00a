// A finished job with a webhook: its terminal event goes to the outbox, signed with the key's secret.
import { describeError, log } from "@/lib/log";
import { enqueueWebhook } from "@/lib/webhooks";
import type { WebhookOutbox } from "@/lib/webhooks/outbox";
import { type JobRecord, viewOf } from "./types";

export async function announceJob(
  outbox: WebhookOutbox,
  job: JobRecord,
  secretOf: (keyId: string) => Promise<string>,
): Promise<void> {
  const { webhookUrl, keyId } = job.internal;
  if (!webhookUrl || !keyId) return;
  const body = JSON.stringify({
    type: `job.${job.status}`,
    timestamp: new Date().toISOString(),
    data: { success: true, ...viewOf(job) },
  });
  try {
    await enqueueWebhook(outbox, { jobId: job.id, url: webhookUrl, secret: await secretOf(keyId), body });
  } catch (err) {
    log.error("webhook could not be queued", { job_id: job.id, ...describeError(err) });
  }
}
