// Enhancement on every engine (contract 1.3) through the providers' fakes, on a real redis-server over REDIS_URL, and Blob.
import { runEnhanceRoutesSuite } from "./enhance-routes-suite";

runEnhanceRoutesSuite("redis");
