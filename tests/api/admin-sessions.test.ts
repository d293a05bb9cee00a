// Issue 19's admin findings on the embedded store (SQLite).
import { runAdminSessionsSuite } from "./admin-sessions-suite";

runAdminSessionsSuite("embedded");
