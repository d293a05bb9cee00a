// Enhancement on every engine (contract 1.3) through the providers' fakes, on SQLite and local files.
import { runEnhanceRoutesSuite } from "./enhance-routes-suite";

runEnhanceRoutesSuite("embedded");
