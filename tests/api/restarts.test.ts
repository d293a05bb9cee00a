// Restarts and crashes during idempotent sync requests on the embedded store (SQLite).
import { runRestartsSuite } from "./restarts-suite";

runRestartsSuite("embedded");
