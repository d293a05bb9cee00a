// Upgrading a 1.1 data directory: every repository of the SQLite backend reads what 1.1 wrote, and writes on.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import Database from "better-sqlite3";
import { DAY_MS, windowStartOf } from "@/lib/quota/types";
import { DB_FILE, openSqliteBackend } from "@/lib/store/sqlite/backend";
import { SCHEMA_VERSION } from "@/lib/store/sqlite/schema";
import { writeVersion6File } from "@/tests/helpers/sqlite-v6";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-upgrade-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

it("opens a 1.1 data directory and reads and writes every entity in it", async () => {
  const dir = fs.mkdtempSync(path.join(root, "v11-"));
  const now = Date.now();
  const bucket = { name: "free-gen", limit: 5, windowMs: DAY_MS };
  const start = windowStartOf(bucket, now);
  const job = {
    id: "job_old",
    kind: "generate",
    owner: "ip:192.0.2.1",
    status: "succeeded",
    created_at: "2031-01-01T00:00:00.000Z",
    finished_at: new Date(now).toISOString(),
    progress: { fraction: 1, queue_position: null, stage: "done" },
    internal: { instance: "inst_old", leaseUntil: 0, units: [] },
  };
  writeVersion6File(
    dir,
    `INSERT INTO usage VALUES ('free-gen', 'ip:192.0.2.1', ${start}, 3);
     INSERT INTO api_keys VALUES ('key_old', 'old key', '${"a".repeat(64)}', 'wxyz', 'pro', '2031-01-01T00:00:00.000Z',
       NULL, 'ada@example.com', 7, 'whsec_old', NULL);
     INSERT INTO waitlist (email, use_case, created_at, id, status, key_id, decided_at) VALUES
       ('pending@example.com', 'posters', '2031-01-02T00:00:00.000Z', 'wl_00000000000000aa', 'pending', NULL, NULL),
       ('ada@example.com', NULL, '2031-01-01T00:00:00.000Z', 'wl_00000000000000bb', 'invited', 'key_old',
        '2031-01-01T00:00:00.000Z');
     INSERT INTO audit_log (at, action, target, ip, actor, detail) VALUES
       ('2031-01-01T00:00:00.000Z', 'approve', 'wl_00000000000000bb', '192.0.2.9', 'session', 'key key_old');
     INSERT INTO jobs VALUES ('job_old', 'succeeded', 0, ${now}, '${JSON.stringify(job)}');
     INSERT INTO webhook_deliveries (id, job_id, url, secret, body, attempts, last_status, next_attempt_at, lease,
       created_at) VALUES ('msg_old', 'job_old', 'https://hooks.example.com/in', 'whsec_old', '{}', 1, 503, ${now - 1},
       NULL, ${now - 5000});
     INSERT INTO images VALUES ('img_old', 'key_old', 'generate', 'http://localhost/cdn/img_old.png',
       '{"prompt":"p","model":"alpha-pro","style":"Photorealistic","ratio":"1:1","seed":1}', 1024, 1024, 10,
       ${now - 1000}, NULL, '${"b".repeat(64)}', NULL, NULL);`,
  );

  const backend = openSqliteBackend(dir);
  try {
    assert.equal((await backend.quota.peek(bucket, "ip:192.0.2.1", now)).used, 3);
    const key = await backend.keys.findKey("key_old");
    assert.equal(key?.email, "ada@example.com");
    assert.equal(key?.dailyLimit, 7);
    assert.equal(key?.webhookSecret, "whsec_old");
    assert.deepEqual(await backend.keys.findKeyByHash("a".repeat(64)), key);
    assert.deepEqual(
      (await backend.waitlist.listWaitlist()).map((e) => [e.id, e.status, e.keyId]),
      [
        ["wl_00000000000000bb", "invited", "key_old"],
        ["wl_00000000000000aa", "pending", null],
      ],
    );
    assert.deepEqual(
      (await backend.audit.listAudit(10)).map((e) => [e.action, e.target, e.ip]),
      [["approve", "wl_00000000000000bb", "192.0.2.9"]],
    );
    assert.equal((await backend.jobs.get("job_old"))?.status, "succeeded");
    assert.equal(await backend.images.count(), 1);
    // A delivery 1.1 queued is claimed as before; it has no key or host recorded, and shares one empty one.
    const [pending] = await backend.webhooks.claimDue(now, 60_000, 10);
    assert.equal(pending?.id, "msg_old");
    assert.deepEqual([pending.attempts, pending.lastStatus, pending.keyId, pending.host], [1, 503, "", ""]);

    // And it writes on: an approval of the old pending entry is one step, and the quota counts on.
    const fresh = {
      id: "key_new",
      label: "pending@example.com",
      hash: "c".repeat(64),
      last4: "abcd",
      plan: "pro" as const,
      createdAt: "2031-03-01T00:00:00.000Z",
      revokedAt: null,
      email: "pending@example.com",
    };
    assert.equal(await backend.waitlist.approveWaitlistEntry("wl_00000000000000aa", fresh), "ok");
    assert.equal((await backend.keys.findKey("key_new"))?.email, "pending@example.com");
    assert.equal((await backend.quota.take(bucket, "ip:192.0.2.1", now)).used, 4);
  } finally {
    await backend.close();
  }
  const db = new Database(path.join(dir, DB_FILE), { readonly: true });
  assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
  db.close();
});
