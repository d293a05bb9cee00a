// The JobStore contract on the embedded SQLite file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteJobStore } from "@/lib/store/jobs-sqlite";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-jobs-"));
runJobStoreSuite("sqlite", async () => openSqliteJobStore(dir));
