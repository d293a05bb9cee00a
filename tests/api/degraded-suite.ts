// Degraded mode: while Redis is down, status says so and quota routes answer 503 busy fast; then it recovers alone.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

export function runDegradedSuite(transport: Exclude<Backend, "embedded">) {
  let backends: Backends;
  let app: App;

  before(async () => {
    backends = await startBackends(transport);
    app = await startApp({ name: "degraded", env: backends.env });
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
    const t = Date.now();
    const out = await fn();
    return [out, Date.now() - t];
  }

  describe(`degraded mode (${transport})`, () => {
    it("answers busy within 2 s while Redis is down, uses nothing, and recovers by itself", async () => {
      const from = "127.0.3.1";
      const { key } = await createKey(app, "degraded");
      assert.equal((await generate(app.url, { prompt: "before the outage" }, { from })).status, 200);

      await backends.redis.stop();
      try {
        const [status, statusMs] = await timed(() => call(app.url, "/api/status", { headers: BROWSER, from }));
        assert.equal(status.status, 200, status.text);
        assert.equal(status.json.status, "degraded");
        assert.ok(statusMs < 2000, `status took ${statusMs} ms`);

        const png = await pngOf(16, 16);
        const attempts = [
          () => generate(app.url, { prompt: "during the outage" }, { from }),
          () => enhance(app.url, { image: { data: png, type: "image/png" } }, { from }),
          () => generate(app.url, { prompt: "pro during the outage" }, { headers: { Authorization: `Bearer ${key}` } }),
          () =>
            call(app.url, "/api/waitlist", {
              method: "POST",
              from,
              headers: { "Content-Type": "application/json" },
              body: '{"email":"x@example.com"}',
            }),
        ];
        for (const attempt of attempts) {
          const [res, ms] = await timed(attempt);
          assert.equal(res.status, 503, res.text);
          assert.equal(res.json.error.code, "busy");
          assert.ok(Number(res.headers["retry-after"]) > 0);
          assert.ok(ms < 2000, `took ${ms} ms`);
        }
      } finally {
        await backends.redis.start();
      }

      // No restart of the app: the next requests after Redis returns just work.
      let recovered = await generate(app.url, { prompt: "after the outage" }, { from });
      for (let i = 0; i < 20 && recovered.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 250));
        recovered = await generate(app.url, { prompt: "after the outage" }, { from });
      }
      assert.equal(recovered.status, 200, recovered.text);
      const status = await call(app.url, "/api/status", { headers: BROWSER, from });
      assert.equal(status.json.status, "ok");
    });
  });
}
