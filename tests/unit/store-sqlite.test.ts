// Runs the shared Store contract against the embedded SQLite backend.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import { openSqliteStore } from "@/lib/store/sqlite";
import { runStoreSuite } from "@/tests/helpers/store-suite";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-store-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

runStoreSuite("sqlite", async () => openSqliteStore(dir));
