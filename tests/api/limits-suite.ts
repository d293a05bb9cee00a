// Operator-set limits, the shared Pro counter, waitlist throttling, and persistence across a restart, on either backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, runScript, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

export function runLimitsSuite(backend: Backend) {
  let app: App;

  let backends: Backends | undefined;

  before(async () => {
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({
      name: `limits-${backend}`,
      env: {
        PRO_REQUESTS_PER_DAY: "3",
        FREE_GENERATIONS_PER_DAY: "2",
        FREE_ENHANCEMENTS_PER_DAY: "1",
        WAITLIST_SIGNUPS_PER_DAY: "2",
        TRUSTED_PROXIES: "127.0.5.1",
        ...backends?.env,
      },
    });
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  describe("operator limits", () => {
    it("Pro generate and enhance share one daily counter per key", async () => {
      const { key } = await createKey(app, "pro");
      const auth = { Authorization: `Bearer ${key}` };
      const png = await pngOf(20, 20);
      const g = await generate(
        app.url,
        { prompt: "a red fox" },
        { headers: { ...auth, "X-Requested-With": "" }, from: "127.0.1.1" },
      );
      assert.equal(g.status, 200, g.text);
      assert.equal(g.json.usage, 1);
      assert.equal(Number(g.headers["x-ratelimit-limit"]), 3);
      const e = await enhance(
        app.url,
        { image: { data: png, type: "image/png" } },
        { headers: auth, from: "127.0.1.2" },
      );
      assert.equal(e.status, 200, e.text);
      assert.equal(Number(e.headers["x-ratelimit-remaining"]), 1);
      assert.equal(
        (await generate(app.url, { prompt: "a blue fox" }, { headers: auth, from: "127.0.1.3" })).status,
        200,
      );
      const limited = await enhance(
        app.url,
        { image: { data: png, type: "image/png" } },
        { headers: auth, from: "127.0.1.4" },
      );
      assert.equal(limited.status, 429);
      assert.equal(limited.json.error.code, "rate_limited");
      const s = await call(app.url, "/api/status", { headers: auth });
      assert.deepEqual([s.json.plan, s.json.usage_today, s.json.limit_today, s.json.remaining], ["pro", 3, 3, 0]);
    });

    it("honours the Free numbers the operator set", async () => {
      const from = "127.0.1.20";
      const s = await call(app.url, "/api/status", { headers: BROWSER, from });
      assert.equal(s.json.limit_today, 2);
      assert.equal(s.json.enhance.limit_today, 1);
    });

    it("rate-limits waitlist signups per IP", async () => {
      const from = "127.0.1.30";
      const join = (email: string) =>
        call(app.url, "/api/waitlist", {
          method: "POST",
          from,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email }),
        });
      assert.equal((await join("a@example.com")).status, 200);
      assert.equal((await join("b@example.com")).status, 200);
      const third = await join("c@example.com");
      assert.equal(third.status, 429);
      assert.equal(third.json.error.code, "rate_limited");
      assert.ok(Number(third.headers["retry-after"]) > 0);
      const elsewhere = await call(app.url, "/api/waitlist", {
        method: "POST",
        from: "127.0.1.31",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "d@example.com" }),
      });
      assert.equal(elsewhere.status, 200, "another IP has its own allowance");
    });

    it("reads the client from X-Forwarded-For only behind a trusted proxy, right-most untrusted hop first", async () => {
      const viaProxy = (xff: string) => ({ from: "127.0.5.1", headers: { "X-Forwarded-For": xff } });
      // The left-most entry is whatever the client sent; the proxy appended the real address on the right.
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await generate(app.url, { prompt: `proxied ${i}` }, viaProxy(`198.51.100.1, 203.0.113.77`))).status,
          200,
        );
      assert.equal((await generate(app.url, { prompt: "proxied 3" }, viaProxy("10.9.9.9, 203.0.113.77"))).status, 429);
      assert.equal((await generate(app.url, { prompt: "another client" }, viaProxy("203.0.113.78"))).status, 200);
      const s = await call(app.url, "/api/status", {
        headers: { ...BROWSER, "X-Forwarded-For": "203.0.113.77" },
        from: "127.0.5.1",
      });
      assert.equal(s.json.usage_today, 2);
      // An untrusted peer cannot borrow that identity (or escape its own) through the header.
      const direct = await generate(
        app.url,
        { prompt: "direct" },
        { from: "127.0.5.2", headers: { "X-Forwarded-For": "203.0.113.78" } },
      );
      assert.equal(direct.status, 200);
      const mine = await call(app.url, "/api/status", { headers: BROWSER, from: "127.0.5.2" });
      assert.equal(mine.json.usage_today, 1);
    });

    it("keeps keys and counts across a restart", async () => {
      const { key } = await createKey(app, "survivor");
      const from = "127.0.1.40";
      assert.equal((await generate(app.url, { prompt: "before restart" }, { from })).status, 200);
      assert.equal(
        (await generate(app.url, { prompt: "with key" }, { headers: { Authorization: `Bearer ${key}` } })).status,
        200,
      );
      const image = (await generate(app.url, { prompt: "still served after restart" }, { from: "127.0.1.41" })).json
        .url as string;
      await app.restart();
      const free = await call(app.url, "/api/status", { headers: BROWSER, from });
      assert.equal(free.json.usage_today, 1);
      const pro = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(pro.status, 200);
      assert.equal(pro.json.usage_today, 1);
      assert.equal((await call(image, "")).status, 200);
      assert.equal((await runScript(app, "keys", ["list"])).lines.filter((l) => l.includes("survivor")).length, 1);
    });
  });
}
