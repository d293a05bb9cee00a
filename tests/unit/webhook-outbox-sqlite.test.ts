// The webhook outbox contract on the embedded SQLite file, plus the schema migration that adds its table.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import Database from "better-sqlite3";
import { DB_FILE, openSqliteBackend } from "@/lib/store/sqlite/backend";
import { SCHEMA_VERSION } from "@/lib/store/sqlite/schema";
import { writeVersion2File } from "@/tests/helpers/sqlite-v2";
import { runWebhookOutboxSuite } from "@/tests/helpers/webhook-outbox-suite";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-outbox-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const freshDir = () => fs.mkdtempSync(path.join(root, "db-"));

runWebhookOutboxSuite("sqlite", async () => {
  const dir = freshDir();
  return { open: () => openSqliteBackend(dir).webhooks };
});

it("adds the outbox table to a file written before it (version 2, 1.0's schema)", async () => {
  const dir = freshDir();
  const file = path.join(dir, DB_FILE);
  writeVersion2File(dir);

  const store = openSqliteBackend(dir);
  assert.equal(await store.ping(), true);
  const outbox = store.webhooks;
  assert.equal(await outbox.get("msg_x"), null);
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
  const columns = db.prepare<[], { name: string }>("PRAGMA table_info(webhook_deliveries)").all();
  assert.ok(columns.some((c) => c.name === "next_attempt_at"));
  db.close();
  await store.close();
});
