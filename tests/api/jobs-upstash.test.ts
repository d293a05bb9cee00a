// Async jobs on Upstash Redis, shared by instances.
import { runJobsSuite } from "./jobs-suite";

runJobsSuite("upstash");
