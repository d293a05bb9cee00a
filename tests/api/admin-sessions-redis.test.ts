// Issue 19's admin findings on Redis over TCP (REDIS_URL, a real redis-server).
import { runAdminSessionsSuite } from "./admin-sessions-suite";

runAdminSessionsSuite("redis");
