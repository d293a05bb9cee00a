// Degraded mode on Redis over TCP (REDIS_URL): redis-server stopped and restarted under a running app.
import { runDegradedSuite } from "./degraded-suite";

runDegradedSuite("redis");
