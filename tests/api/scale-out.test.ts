// Two instances on one Redis through the Upstash REST bridge.
import { runScaleOutSuite } from "./scale-out-suite";

runScaleOutSuite("upstash");
