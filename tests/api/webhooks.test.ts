// Webhook delivery on the embedded store (SQLite): atomic with the job's end, refusals explained, fair to tenants.
import { runWebhooksSuite } from "./webhooks-suite";

runWebhooksSuite("embedded");
