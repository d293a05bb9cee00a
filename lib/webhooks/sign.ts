// Standard Webhooks signatures (https://www.standardwebhooks.com), made by the reference package so receivers can
// verify with any Standard Webhooks library.
import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";

export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** A signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString("base64")}`;
}

/** A message id; one per delivery, kept across its retries so the receiver can drop duplicates. */
export function newWebhookId(): string {
  return `msg_${crypto.randomBytes(16).toString("hex")}`;
}

/**
 * The three headers for one attempt. The timestamp is the attempt's own: receivers refuse a timestamp more than
 * five minutes off, so a retry is signed afresh under the same id.
 */
export function signWebhook(opts: { id: string; secret: string; body: string; now?: Date }): WebhookHeaders {
  const now = opts.now ?? new Date();
  return {
    "webhook-id": opts.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(opts.secret).sign(opts.id, now, opts.body),
  };
}
