// Async jobs on the embedded store (SQLite).
import { runJobsSuite } from "./jobs-suite";

runJobsSuite("embedded");
