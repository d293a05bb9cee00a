// A finished job with a webhook: its terminal event, signed with the key's secret, goes into the outbox in the same
// write as the job's end (JobStore.transition), so the end is never recorded without its delivery.
import type { DeliveryOf } from "@/lib/jobs/store";
import { newDelivery } from "@/lib/webhooks";
import { type JobRecord, viewOf } from "./types";

/**
 * How `job`'s end makes its delivery, or undefined when it asked for no webhook. The key's signing secret is read
 * first: the write that ends the job cannot wait on the store.
 */
export async function webhookFor(
  job: JobRecord,
  secretOf: (keyId: string) => Promise<string>,
): Promise<DeliveryOf | undefined> {
  const { webhookUrl, keyId } = job.internal;
  if (!webhookUrl || !keyId) return undefined;
  const secret = await secretOf(keyId);
  return (next) =>
    newDelivery({
      jobId: next.id,
      keyId,
      url: webhookUrl,
      secret,
      body: JSON.stringify({
        type: `job.${next.status}`,
        timestamp: new Date().toISOString(),
        data: { success: true, ...viewOf(next) },
      }),
    });
}
