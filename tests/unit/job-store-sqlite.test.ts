// The JobStore contract on the embedded SQLite file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-jobs-"));
const backend = openSqliteBackend(dir);
runJobStoreSuite("sqlite", async () => backend);
