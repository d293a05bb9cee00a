// Slow and hostile clients on embedded SQLite.
import { runUploadsSuite } from "./uploads-suite";

runUploadsSuite("embedded");
