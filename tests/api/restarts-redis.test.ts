// Restarts and crashes during idempotent sync requests on Redis over TCP (REDIS_URL).
import { runRestartsSuite } from "./restarts-suite";

runRestartsSuite("redis");
