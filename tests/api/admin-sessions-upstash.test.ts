// Issue 19's admin findings on Upstash Redis (a real redis-server behind the REST bridge).
import { runAdminSessionsSuite } from "./admin-sessions-suite";

runAdminSessionsSuite("upstash");
