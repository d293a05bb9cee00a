// Restarts and crashes during idempotent sync requests on Upstash Redis (through the REST bridge).
import { runRestartsSuite } from "./restarts-suite";

runRestartsSuite("upstash");
