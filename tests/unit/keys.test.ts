// Pro keys: format, hashing under the pepper, verification and revocation against the real SQLite store.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { createApiKey, hashApiKey, verifyApiKey } from "@/lib/auth/keys";
import { loadPepper } from "@/lib/auth/pepper";
import { parseConfig } from "@/lib/config";
import { identifyCaller } from "@/lib/http/identify";
import { chargesFor } from "@/lib/quota/ledger";
import { bucketsOf } from "@/lib/quota/policies";
import type { Services } from "@/lib/services";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";

describe("API keys", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-keys-"));
  const store = openSqliteBackend(dir).keys;
  const pepper = loadPepper(dir, undefined);

  it("generates the pepper once into DATA_DIR and reuses it", () => {
    assert.equal(loadPepper(dir, undefined), pepper);
    assert.equal(fs.statSync(path.join(dir, "key-pepper")).mode & 0o777, 0o600);
    assert.equal(loadPepper(dir, "x".repeat(40)), "x".repeat(40));
  });

  it("stores only a keyed hash and the last 4 characters", async () => {
    const { key, record } = await createApiKey(store, pepper, "label");
    assert.match(key, /^dk_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(record.last4, key.slice(-4));
    assert.equal(record.hash, hashApiKey(key, pepper));
    assert.notEqual(hashApiKey(key, pepper), hashApiKey(key, `${pepper}!`));
    const raw = fs.readFileSync(path.join(dir, "darkroom.db"));
    assert.equal(raw.includes(Buffer.from(key)), false, "the key itself is never written");
  });

  it("verifies active keys and rejects unknown, malformed and revoked ones", async () => {
    const { key, record } = await createApiKey(store, pepper, "v");
    assert.equal((await verifyApiKey(store, pepper, key))?.id, record.id);
    // One character off (never the same character: a key may well end in "A").
    const off = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    assert.equal(await verifyApiKey(store, pepper, off), null);
    assert.equal(await verifyApiKey(store, pepper, "dk_live_short"), null);
    assert.equal(await store.revokeKey(record.id, new Date().toISOString()), true);
    assert.equal(await verifyApiKey(store, pepper, key), null);
    assert.equal(await store.revokeKey("key_missing", new Date().toISOString()), false);
  });

  it("gives each key its own webhook signing secret, and keeps the email and daily limit it was made with", async () => {
    const a = await createApiKey(store, pepper, "a", { email: "ada@example.com", dailyLimit: 3 });
    const b = await createApiKey(store, pepper, "b");
    assert.match(a.record.webhookSecret ?? "", /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.record.webhookSecret?.slice(6) ?? "", "base64").length, 32);
    assert.notEqual(a.record.webhookSecret, b.record.webhookSecret);
    const found = await verifyApiKey(store, pepper, a.key);
    assert.deepEqual(
      [found?.email, found?.dailyLimit, found?.webhookSecret],
      ["ada@example.com", 3, a.record.webhookSecret],
    );
    assert.equal((await verifyApiKey(store, pepper, b.key))?.dailyLimit, undefined);
  });

  it("counts a key with its own limit on the Pro counter, against that limit", async () => {
    const config = parseConfig({ PRO_REQUESTS_PER_DAY: "50" });
    const svc = { keys: store, pepper, config } as unknown as Services;
    const buckets = bucketsOf(config.limits);
    const bearer = (key: string) => new Request("http://localhost/", { headers: { authorization: `Bearer ${key}` } });
    const own = await createApiKey(store, pepper, "own", { dailyLimit: 2 });
    const plain = await createApiKey(store, pepper, "plain");
    const ownCaller = await identifyCaller(bearer(own.key), svc, null);
    const plainCaller = await identifyCaller(bearer(plain.key), svc, null);
    assert.equal(ownCaller.dailyLimit, 2);
    assert.equal(plainCaller.dailyLimit, undefined);
    const [ownCharge] = chargesFor(buckets, "generate", ownCaller);
    const [plainCharge] = chargesFor(buckets, "enhance", plainCaller);
    assert.deepEqual(ownCharge.bucket, { ...buckets.proRequests, limit: 2 });
    assert.deepEqual(plainCharge.bucket, buckets.proRequests);
    assert.equal(chargesFor(buckets, "status", ownCaller)[0].bucket.limit, 2, "status reports the key's own limit");
  });
});
