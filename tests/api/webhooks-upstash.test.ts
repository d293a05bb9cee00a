// Webhook delivery on Upstash Redis (the REST bridge to a real redis-server).
import { runWebhooksSuite } from "./webhooks-suite";

runWebhooksSuite("upstash");
