// Webhook delivery on Redis over REDIS_URL (a real redis-server).
import { runWebhooksSuite } from "./webhooks-suite";

runWebhooksSuite("redis");
