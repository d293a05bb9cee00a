// Degraded mode on Redis through the Upstash REST bridge.
import { runDegradedSuite } from "./degraded-suite";

runDegradedSuite("upstash");
