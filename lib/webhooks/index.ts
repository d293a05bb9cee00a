// Webhook delivery: the request-time URL check, Standard Webhooks signing, and an outbox worker that delivers at
// least once with the contract's retries, refusing private addresses at send time.
export { type AddressClass, classifyAddress, isPublicAddress } from "@/lib/net/address";
export { type BreakerSettings, createHostBreaker, type HostBreaker } from "./breaker";
export { CLAIM_LIMITS, DELIVERY_POLICY, hostOf } from "./policy";
export { MAX_ATTEMPTS, nextRetryAt, RETRY_DELAYS_MS } from "./schedule";
export { isDelivered, type Resolver, type SendResult, sendWebhook } from "./send";
export { newWebhookSecret, signWebhook, type WebhookHeaders } from "./sign";
export { checkWebhookUrl, isAllowedHost, normalizeHost } from "./url";
export {
  createWebhookWorker,
  enqueueWebhook,
  newDelivery,
  type WebhookAttempt,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./worker";
