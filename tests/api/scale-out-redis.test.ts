// Two instances on one Redis over TCP (REDIS_URL).
import { runScaleOutSuite } from "./scale-out-suite";

runScaleOutSuite("redis");
