// Two app processes sharing one Redis (through either transport) and one image folder, with no proxy in front.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, runScript, startApp, tempDataDir } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, generate } from "../helpers/http";

export function runScaleOutSuite(transport: Exclude<Backend, "embedded">) {
  let backends: Backends;
  let a: App;
  let b: App;

  before(async () => {
    backends = await startBackends(transport);
    // Shared storage for self-hosting: both instances keep images in one DATA_DIR; quotas and keys live in Redis.
    const dataDir = tempDataDir("scale-out");
    const env = { ...backends.env, BLOB_READ_WRITE_TOKEN: "", VERCEL_BLOB_API_URL: "" };
    a = await startApp({ name: "scale-a", dataDir, env });
    b = await startApp({ name: "scale-b", dataDir, env });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await backends?.close();
  });

  describe(`scale-out (${transport})`, () => {
    it("admits exactly 5 of 20 parallel free generations from one IP split across two instances", async () => {
      const from = "127.0.2.1";
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          generate(i % 2 ? b.url : a.url, { prompt: `harbour at dawn ${i}` }, { from }),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      assert.equal(ok.length, 5, replies.map((r) => r.status).join(","));
      assert.ok(replies.every((r) => r.status === 200 || (r.status === 429 && r.json.error.code === "rate_limited")));
      assert.deepEqual(ok.map((r) => r.json.usage).sort(), [1, 2, 3, 4, 5]);
      for (const app of [a, b]) {
        const s = await call(app.url, "/api/status", { headers: BROWSER, from });
        assert.equal(s.json.usage_today, 5);
      }
    });

    it("rejects a key on the other instance on the very next request after revocation", async () => {
      const { key, id } = await createKey(a, "scale");
      const auth = { Authorization: `Bearer ${key}` };
      assert.equal((await call(a.url, "/api/status", { headers: auth, from: "127.0.2.2" })).status, 200);
      assert.equal((await call(b.url, "/api/status", { headers: auth, from: "127.0.2.3" })).status, 200);
      assert.equal((await runScript(a, "keys", ["revoke", id])).code, 0);
      const next = await call(b.url, "/api/status", { headers: auth, from: "127.0.2.3" });
      assert.equal(next.status, 401);
      assert.equal(next.json.error.code, "unauthorized");
    });

    it("serves an image stored by one instance from the other", async () => {
      const res = await generate(a.url, { prompt: "lighthouse in fog" }, { from: "127.0.2.4" });
      assert.equal(res.status, 200, res.text);
      const path = new URL(res.json.url).pathname;
      const viaB = await call(b.url, path);
      assert.equal(viaB.status, 200);
      assert.equal(viaB.headers["content-type"], "image/png");
      assert.deepEqual(viaB.body, (await call(a.url, path)).body);
    });
  });
}
