// Each generate or enhance request is recorded once with its outcome; status reads, 202s and replays are not.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { it } from "node:test";
import { createApiKey, webhookSecretFor } from "@/lib/auth/keys";
import type { Caller } from "@/lib/auth/types";
import { webhookSecretOf } from "@/lib/console/keys";
import type { UsageNote } from "@/lib/quota/ledger";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import type { UsageEvent, UsageHistory } from "@/lib/usage/history";
import { noUsageHistory } from "@/lib/usage/history";
import { outcomeOf, usageRecorderFor } from "@/lib/usage/recording";

const pro: Caller = { plan: "pro", identity: "key:key_1", keyId: "key_1", ip: "192.0.2.1" };
const free: Caller = { plan: "free", identity: "ip:192.0.2.1", ip: "192.0.2.1" };

function recording(): { usage: UsageHistory; events: UsageEvent[] } {
  const events: UsageEvent[] = [];
  return { events, usage: { ...noUsageHistory, record: async (e) => void events.push(e) } };
}
const post = (path: string) => new Request(`http://localhost${path}`, { method: "POST" });

it("maps answers to outcomes", () => {
  assert.deepEqual([200, 400, 413, 422, 429, 500, 503].map(outcomeOf), [
    "succeeded",
    "refused",
    "refused",
    "refused",
    "refused",
    "failed",
    "failed",
  ]);
});

it("records a request once, with its plan, key, model and engine; Free without the address", async () => {
  const { usage, events } = recording();
  const note: UsageNote = { model: "alpha-pro" };
  const record = usageRecorderFor({ usage }, post("/api/generate"), "generate", pro, note);
  assert.ok(record);
  note.engine = "preview";
  await record({ success: true });
  await record(500);
  assert.equal(events.length, 1);
  assert.deepEqual(
    { ...events[0], at: 0 },
    {
      at: 0,
      plan: "pro",
      keyId: "key_1",
      endpoint: "generate",
      model: "alpha-pro",
      engine: "preview",
      outcome: "succeeded",
    },
  );
  const freeRecord = usageRecorderFor({ usage }, post("/api/enhance"), "enhance", free, {});
  await freeRecord?.(429);
  assert.deepEqual(
    [events[1].plan, events[1].keyId, events[1].model, events[1].outcome],
    ["free", null, "", "refused"],
  );
  assert.ok(!JSON.stringify(events).includes("192.0.2.1"), "no address is recorded");
});

it("leaves out status reads, other methods, accepted jobs and replayed answers", async () => {
  const { usage, events } = recording();
  assert.equal(usageRecorderFor({ usage }, post("/api/status"), "status", pro, {}), undefined);
  assert.equal(
    usageRecorderFor({ usage }, new Request("http://localhost/api/generate"), "generate", pro, {}),
    undefined,
  );
  await usageRecorderFor({ usage }, post("/api/generate"), "generate", pro, {})?.(new Response(null, { status: 202 }));
  const replay = new Response("{}", { status: 200, headers: { "Idempotent-Replayed": "true" } });
  await usageRecorderFor({ usage }, post("/api/generate"), "generate", pro, {})?.(replay);
  assert.equal(events.length, 0);
});

it("never fails the request when the history cannot record", async () => {
  const usage = { ...noUsageHistory, record: async () => Promise.reject(new Error("store down")) };
  await usageRecorderFor({ usage }, post("/api/generate"), "generate", pro, {})?.(200);
});

it("an older key without a stored secret keeps the one derived from the pepper, stored on first read", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-secret-"));
  const store = openSqliteBackend(dir);
  const { keys } = store;
  const pepper = "p".repeat(40);
  const { record } = await createApiKey(keys, pepper, "old");
  const { webhookSecret: _, ...older } = record;
  const legacy = { ...older, id: "key_legacy", hash: "0".repeat(64) };
  await keys.insertKey(legacy);
  const secret = await webhookSecretOf({ keys, pepper }, legacy);
  assert.equal(secret, webhookSecretFor("key_legacy", pepper));
  assert.equal((await keys.findKey("key_legacy"))?.webhookSecret, secret);
  assert.equal(await webhookSecretOf({ keys, pepper }, record), record.webhookSecret, "a stored secret wins");
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
