// Identity that fails closed, on either store: one shared bucket for requests without an address, the IPv6 /48
// cap, and the global free caps, exact across two instances.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, startApp, tempDataDir } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

const PROXY = "127.0.6.1";
const viaProxy = (xff: string) => ({ from: PROXY, headers: { "X-Forwarded-For": xff } });

export function runIdentitySuite(backend: Backend) {
  describe("identity", () => {
    let app: App;
    let backends: Backends | undefined;
    before(async () => {
      backends = backend === "embedded" ? undefined : await startBackends(backend);
      app = await startApp({
        name: `identity-${backend}`,
        env: {
          FREE_GENERATIONS_PER_DAY: "2",
          FREE_GLOBAL_GENERATIONS_PER_DAY: "0",
          TRUSTED_PROXIES: PROXY,
          ...backends?.env,
        },
      });
    });
    after(async () => {
      await app?.stop();
      await backends?.close();
    });

    it("puts every request without a usable address in one shared bucket, and logs it", async () => {
      assert.equal((await generate(app.url, { prompt: "no address 1" }, viaProxy("not-an-ip"))).status, 200);
      assert.equal((await generate(app.url, { prompt: "no address 2" }, viaProxy("999.1.1.1"))).status, 200);
      const third = await generate(app.url, { prompt: "no address 3" }, viaProxy("also garbage"));
      assert.equal(third.status, 429, "a missing address never opens fresh quota");
      assert.equal(third.json.error.code, "rate_limited");
      assert.match(app.logs(), /without a usable client address share one free bucket/);
    });

    it("gives all the /64s of one IPv6 /48 together at most 4x the per-IP limit", async () => {
      // Limit 2 per /64, so 8 for the /48: four /64s use it up, a fifth is refused, another /48 is not.
      for (let net = 1; net <= 4; net++) {
        for (let i = 0; i < 2; i++) {
          const r = await generate(app.url, { prompt: `v6 ${net} ${i}` }, viaProxy(`2001:db8:aa:${net}::${i + 1}`));
          assert.equal(r.status, 200, r.text);
        }
      }
      const fifth = await generate(app.url, { prompt: "v6 fifth" }, viaProxy("2001:db8:aa:5::1"));
      assert.equal(fifth.status, 429);
      assert.match(fifth.json.error.message, /IPv6 network/);
      assert.ok(Number(fifth.headers["retry-after"]) > 0);
      const status = await call(app.url, "/api/status", {
        from: PROXY,
        headers: { "X-Forwarded-For": "2001:db8:aa:5::1", "X-Requested-With": "XMLHttpRequest" },
      });
      assert.equal(status.json.usage_today, 0, "the refused request used nothing of its own /64");
      assert.equal((await generate(app.url, { prompt: "v6 other" }, viaProxy("2001:db8:bb:1::1"))).status, 200);
    });
  });

  describe("global free caps", () => {
    let a: App;
    let b: App;
    let backends: Backends | undefined;
    before(async () => {
      backends = backend === "embedded" ? undefined : await startBackends(backend);
      const dataDir = tempDataDir(`caps-${backend}`);
      const env = {
        FREE_GLOBAL_GENERATIONS_PER_DAY: "5",
        FREE_GLOBAL_ENHANCEMENTS_PER_DAY: "2",
        ...backends?.env,
      };
      a = await startApp({ name: `caps-a-${backend}`, dataDir, env });
      b = await startApp({ name: `caps-b-${backend}`, dataDir, env });
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await backends?.close();
    });

    it("admits exactly the cap of parallel free generations from many addresses across two instances", async () => {
      const replies = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          generate(i % 2 ? b.url : a.url, { prompt: `capped ${i}` }, { from: `127.0.7.${i + 1}` }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(","));
      for (const r of replies.filter((r) => r.status !== 200)) {
        assert.equal(r.status, 429, r.text);
        assert.match(r.json.error.message, /free plan's capacity for today is used up/);
        assert.ok(Number(r.headers["retry-after"]) > 0);
      }
      // A refused caller's own counter is untouched: the cap refused it, not its daily limit.
      const refused = replies.findIndex((r) => r.status === 429);
      const mine = await call(a.url, "/api/status", {
        headers: { "X-Requested-With": "XMLHttpRequest" },
        from: `127.0.7.${refused + 1}`,
      });
      assert.equal(mine.json.usage_today, 0);
    });

    it("does not limit Pro keys, and counts enhancements on their own cap", async () => {
      const { key } = await createKey(a, "capped-pro");
      const pro = await generate(
        b.url,
        { prompt: "pro after the cap" },
        { headers: { Authorization: `Bearer ${key}` } },
      );
      assert.equal(pro.status, 200, pro.text);
      const png = await pngOf(16, 16);
      const replies = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          enhance(i % 2 ? b.url : a.url, { image: { data: png, type: "image/png" } }, { from: `127.0.8.${i + 1}` }),
        ),
      );
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 429, 429]);
    });
  });
}
