// The v1.0 contract, row by row, against the real built app started through `npm start`, on either backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import sharp from "sharp";
import { type App, createKey, runScript, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { awayFromMinuteEdge, BROWSER, call, enhance, generate, JSON_BROWSER } from "../helpers/http";
import { bombPng, pngOf, rotatedJpeg, SVG_BYTES, truncatedPng } from "../helpers/images";

export function runContractSuite(backend: Backend) {
  let app: App;
  let lastOctet = 10;
  /** A fresh loopback address: a distinct client with untouched Free buckets. */
  const nextIp = () => `127.0.0.${lastOctet++}`;

  const nextMidnightSec = () => Math.floor(Date.now() / 86_400_000) * 86_400 + 86_400;

  function assertContractHeaders(
    res: { headers: Record<string, unknown>; json: { error?: { request_id: string } } },
    limit?: number,
  ) {
    const h = res.headers;
    assert.match(String(h["x-ratelimit-limit"]), /^\d+$/);
    assert.match(String(h["x-ratelimit-remaining"]), /^\d+$/);
    assert.equal(Number(h["x-ratelimit-reset"]), nextMidnightSec());
    assert.match(String(h["x-request-id"]), /^req_[a-f0-9]{32}$/);
    if (limit !== undefined) assert.equal(Number(h["x-ratelimit-limit"]), limit);
    if (res.json?.error) assert.equal(res.json.error.request_id, h["x-request-id"]);
  }

  function assertError(res: Awaited<ReturnType<typeof call>>, status: number, code: string) {
    assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${res.text}`);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    assert.equal(res.json.success, false);
    assert.equal(res.json.error.code, code);
    assert.equal(typeof res.json.error.message, "string");
    assert.ok(res.json.error.message.length > 0);
    assert.doesNotMatch(res.json.error.message, /at .*\.(ts|js):\d+/, "no stack traces");
    assertContractHeaders(res);
  }

  async function statusOf(from: string, headers: Record<string, string> = BROWSER) {
    const res = await call(app.url, "/api/status", { headers, from });
    assert.equal(res.status, 200, res.text);
    return res.json;
  }

  let backends: Backends | undefined;
  /** Where image URLs point: the app's /cdn, or the Blob server. */
  let imageBase = "";

  before(async () => {
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({ name: `contract-${backend}`, env: backends?.env });
    imageBase = backends ? `${backends.blobOrigin}/darkroom/` : `${app.url}/cdn/`;
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  describe("identity and plans", () => {
    it("refuses a request with neither a key nor X-Requested-With, pointing to the waitlist", async () => {
      for (const [method, path] of [
        ["GET", "/api/status"],
        ["POST", "/api/generate"],
        ["POST", "/api/enhance"],
      ]) {
        const res = await call(app.url, path, { method, from: nextIp() });
        assertError(res, 401, "unauthorized");
        assert.match(res.json.error.message, /waitlist/i);
        assert.equal(Number(res.headers["x-ratelimit-limit"]), 5, "401 describes the Free generation bucket");
      }
    });

    it("serves the Free plan to browser requests, counted per IP", async () => {
      const s = await statusOf(nextIp());
      assert.equal(s.plan, "free");
      assert.equal(s.limit_today, 5);
      assert.equal(s.usage_today, 0);
      assert.equal(s.remaining, 5);
    });

    it("rejects unknown, malformed and revoked keys without falling back to Free", async () => {
      const { key, id } = await createKey(app, "revoke-me");
      const from = nextIp();
      const ok = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${key}` }, from });
      assert.equal(ok.status, 200);
      assert.equal(ok.json.plan, "pro");
      assert.equal(ok.json.limit_today, 1000);
      assert.equal(Number(ok.headers["x-ratelimit-limit"]), 1000);

      const bad = [
        `Bearer dk_live_${"A".repeat(43)}`,
        "Bearer nope",
        "Bearer",
        "",
        `Basic ${key}`,
        `Bearer ${key.slice(0, -1)}x`,
      ];
      for (const auth of bad) {
        const res = await call(app.url, "/api/status", { headers: { ...BROWSER, Authorization: auth }, from });
        assertError(res, 401, "unauthorized");
      }
      assert.equal((await runScript(app, "keys", ["revoke", id])).code, 0);
      const revoked = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${key}` }, from });
      assertError(revoked, 401, "unauthorized");
    });

    it("lists keys with only their last 4 characters", async () => {
      const { key, id } = await createKey(app, "listed");
      const out = await runScript(app, "keys", ["list"]);
      assert.equal(out.code, 0);
      const row = out.lines.find((l) => l.includes(id));
      assert.ok(row, "key listed");
      assert.ok(row.includes(key.slice(-4)));
      assert.ok(!out.lines.join("\n").includes(key), "full key never shown again");
      assert.match(key, /^dk_live_[A-Za-z0-9_-]{43}$/);
    });

    it("ignores a spoofed X-Forwarded-For and X-Real-IP", async () => {
      const from = nextIp();
      for (let i = 0; i < 5; i++)
        assert.equal((await generate(app.url, { prompt: `spoof ${i}` }, { from })).status, 200);
      const spoofed = await generate(
        app.url,
        { prompt: "one more" },
        {
          from,
          headers: {
            "X-Forwarded-For": "203.0.113.9",
            "X-Real-IP": "203.0.113.10",
            "X-Darkroom-Client-Ip": "203.0.113.11",
          },
        },
      );
      assertError(spoofed, 429, "rate_limited");
      const other = await generate(
        app.url,
        { prompt: "another client" },
        { from: nextIp(), headers: { "X-Forwarded-For": from } },
      );
      assert.equal(other.status, 200);
    });
  });

  describe("GET /api/status", () => {
    it("returns the status record with the next UTC midnight", async () => {
      const res = await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() });
      assert.equal(res.status, 200);
      assertContractHeaders(res, 5);
      const s = res.json;
      assert.equal(s.status, "ok");
      assert.equal(s.version, "1.0");
      assert.equal(s.api_revision, "1.2");
      assert.equal(s.reset_at, new Date(nextMidnightSec() * 1000).toISOString());
      assert.ok(s.styles.length >= 12);
      for (const name of ["Photorealistic", "Cinematic", "Illustration", "Anime"])
        assert.ok(s.styles.some((x: { name: string }) => x.name === name));
      assert.deepEqual(
        s.models.map((m: { name: string }) => m.name),
        ["alpha-pro", "beta-3", "gamma-xl-1024-v1-0", "alpha-schnell"],
      );
      for (const m of s.models) {
        assert.equal(m.engine, "preview");
        assert.equal(m.ai, false);
      }
    });

    it("does not count against the daily quota", async () => {
      const from = nextIp();
      for (let i = 0; i < 3; i++) await statusOf(from);
      assert.equal((await statusOf(from)).usage_today, 0);
    });

    it("has its own guard of 60 calls per minute", async () => {
      const from = nextIp();
      await awayFromMinuteEdge(20_000);
      const replies = await Promise.all(
        Array.from({ length: 61 }, () => call(app.url, "/api/status", { headers: BROWSER, from })),
      );
      const limited = replies.filter((r) => r.status === 429);
      assert.equal(replies.filter((r) => r.status === 200).length, 60);
      assert.equal(limited.length, 1);
      assertError(limited[0], 429, "rate_limited");
      const retry = Number(limited[0].headers["retry-after"]);
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    });
  });

  describe("POST /api/generate", () => {
    it("generates a stored PNG per ratio, with usage counted", async () => {
      const from = nextIp();
      const sizes: Record<string, number> = { "1:1": 1, "16:9": 16 / 9, "9:16": 9 / 16 };
      let used = 0;
      for (const [ratio, expected] of Object.entries(sizes)) {
        const res = await generate(
          app.url,
          { prompt: "a lighthouse at sunset by the sea", ratio, style: "Cinematic", model: "gamma-xl-1024-v1-0" },
          { from },
        );
        assert.equal(res.status, 200, res.text);
        used++;
        const g = res.json;
        assert.equal(g.success, true);
        assert.equal(g.ratio, ratio);
        assert.equal(g.model, "gamma-xl-1024-v1-0");
        assert.equal(g.engine, "preview");
        assert.equal(g.ai, false);
        assert.equal(g.usage, used);
        assert.equal(g.remaining, 5 - used);
        assert.equal(Number(res.headers["x-ratelimit-remaining"]), 5 - used);
        assertContractHeaders(res, 5);
        assert.ok(g.url.startsWith(imageBase), g.url);
        const img = await call(g.url, "");
        assert.equal(img.status, 200);
        assert.equal(img.headers["content-type"], "image/png");
        // Blob's CDN sends a year-long max-age; our own /cdn also says immutable.
        assert.match(
          String(img.headers["cache-control"]),
          backend === "embedded" ? /max-age=31536000, immutable/ : /max-age=31536000/,
        );
        if (backend === "embedded") assert.equal(img.headers["x-content-type-options"], "nosniff");
        const meta = await sharp(img.body).metadata();
        assert.equal(meta.format, "png");
        assert.equal(meta.width, g.width);
        assert.equal(meta.height, g.height);
        assert.ok(Math.abs(meta.width! / meta.height! / expected - 1) <= 0.03);
        assert.ok(Math.min(meta.width!, meta.height!) >= 512);
      }
    });

    it("applies defaults and ignores unknown fields", async () => {
      const res = await generate(app.url, { prompt: "snowy mountain", whatever: { nested: true } }, { from: nextIp() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.model, "alpha-pro");
      assert.equal(res.json.ratio, "1:1");
      assert.equal(res.json.style, "Photorealistic");
    });

    it("counts prompt length in code points", async () => {
      const from = nextIp();
      const ok = await generate(app.url, { prompt: "🌄".repeat(400) }, { from });
      assert.equal(ok.status, 200, ok.text);
      assertError(await generate(app.url, { prompt: "🌄".repeat(401) }, { from }), 400, "invalid_prompt");
    });

    it("rejects bad input with the right code and uses no quota", async () => {
      const from = nextIp();
      const cases: [unknown, number, string, Record<string, string>?][] = [
        ["not json", 400, "invalid_request"],
        ["[1,2]", 400, "invalid_request"],
        [JSON.stringify({ prompt: "x".repeat(70_000) }), 400, "invalid_request"],
        [{ prompt: "a cat" }, 400, "invalid_request", { "Content-Type": "text/plain" }],
        [{}, 400, "invalid_prompt"],
        [{ prompt: "" }, 400, "invalid_prompt"],
        [{ prompt: "   \n\t " }, 400, "invalid_prompt"],
        [{ prompt: 42 }, 400, "invalid_prompt"],
        [{ prompt: null }, 400, "invalid_prompt"],
        [{ prompt: "x".repeat(401) }, 400, "invalid_prompt"],
        [{ prompt: "a cat", model: "dall-e-3" }, 400, "invalid_model"],
        [{ prompt: "a cat", model: 7 }, 400, "invalid_model"],
        [{ prompt: "a cat", style: "photorealistic" }, 400, "invalid_style"],
        [{ prompt: "a cat", style: "Vaporwave" }, 400, "invalid_style"],
        [{ prompt: "a cat", ratio: "4:3" }, 400, "invalid_ratio"],
        [{ prompt: "a cat", ratio: 1 }, 400, "invalid_ratio"],
        [{ prompt: "a cat", seed: -1 }, 400, "invalid_seed"],
        [{ prompt: "a cat", seed: 1.5 }, 400, "invalid_seed"],
        [{ prompt: "a cat", negative_prompt: "y".repeat(401) }, 400, "invalid_negative_prompt"],
        [{ prompt: "x".repeat(401), model: "nope", ratio: "2:1" }, 400, "invalid_prompt"],
        [{ prompt: "explicit porn of a naked woman" }, 422, "content_filtered"],
        // Everything sent to a provider is filtered: signals split across the two fields still add up.
        [{ prompt: "a young girl at the beach", negative_prompt: "clothes, swimsuit" }, 422, "content_filtered"],
      ];
      for (const [body, status, code, headers] of cases) {
        const res = await generate(app.url, body, { from, headers });
        assertError(res, status, code);
        assert.equal(Number(res.headers["x-ratelimit-remaining"]), 5);
      }
      assert.equal((await statusOf(from)).usage_today, 0);
    });

    it("answers 429 with Retry-After after 5 free generations, and checks input before quota", async () => {
      const from = nextIp();
      for (let i = 0; i < 5; i++)
        assert.equal((await generate(app.url, { prompt: `forest ${i}` }, { from })).status, 200);
      const res = await generate(app.url, { prompt: "forest 6" }, { from });
      assertError(res, 429, "rate_limited");
      assert.equal(res.headers["x-ratelimit-remaining"], "0");
      const retry = Number(res.headers["retry-after"]);
      const expected = nextMidnightSec() - Math.floor(Date.now() / 1000);
      assert.ok(Math.abs(retry - expected) <= 2, `Retry-After ${retry} vs ${expected}`);
      assert.match(res.json.error.message, /midnight UTC/);
      // identity → input → filter → quota
      assertError(await generate(app.url, { prompt: "" }, { from }), 400, "invalid_prompt");
      assertError(await generate(app.url, { prompt: "hardcore porn sex scene" }, { from }), 422, "content_filtered");
      assertError(await call(app.url, "/api/generate", { method: "POST", from, body: "{}" }), 401, "unauthorized");
      const s = await statusOf(from);
      assert.equal(s.usage_today, 5);
      assert.equal(s.remaining, 0);
    });

    it("is exact under concurrency: 12 parallel requests, 5 units left, 5 successes", async () => {
      const from = nextIp();
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => generate(app.url, { prompt: `city at night ${i}` }, { from })),
      );
      const ok = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      assert.equal(ok.length, 5);
      assert.equal(limited.length, 7);
      for (const r of limited) assert.equal(r.json.error.code, "rate_limited");
      assert.deepEqual(ok.map((r) => r.json.usage).sort(), [1, 2, 3, 4, 5]);
      for (const r of ok) assert.equal((await call(r.json.url, "")).status, 200);
    });
  });

  describe("POST /api/enhance", () => {
    it("upscales 2x by default, and 4x on request, to a stored PNG", async () => {
      const from = nextIp();
      const png = await pngOf(64, 48);
      const res = await enhance(app.url, { image: { data: png, type: "image/png" } }, { from });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.success, true);
      assert.equal(res.json.original_size, "64x48");
      assert.equal(res.json.enhanced_size, "128x96");
      assertContractHeaders(res, 5);
      const img = await call(res.json.url, "");
      const meta = await sharp(img.body).metadata();
      assert.equal(img.headers["content-type"], "image/png");
      assert.deepEqual([meta.format, meta.width, meta.height], ["png", 128, 96]);

      const x4 = await enhance(
        app.url,
        { image: { data: png, type: "image/png" }, scale: "4", strength: "1" },
        { from },
      );
      assert.equal(x4.status, 200, x4.text);
      assert.equal(x4.json.enhanced_size, "256x192");
    });

    it("applies EXIF orientation and strips metadata", async () => {
      const jpeg = await rotatedJpeg(40, 20, 6);
      const res = await enhance(app.url, { image: { data: jpeg, type: "image/jpeg" } }, { from: nextIp() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.original_size, "20x40");
      assert.equal(res.json.enhanced_size, "40x80");
      const meta = await sharp((await call(res.json.url, "")).body).metadata();
      assert.equal(meta.exif, undefined);
      assert.equal(meta.orientation, undefined);
    });

    it("caps the long side at 4096 px", async () => {
      const res = await enhance(
        app.url,
        { image: { data: await pngOf(3000, 1000), type: "image/png" }, scale: "4" },
        { from: nextIp() },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.enhanced_size, "4096x1365");
    });

    it("rejects bad uploads with the right code and uses no quota", async () => {
      const from = nextIp();
      const png = await pngOf(32, 32);
      const cases: [Parameters<typeof enhance>[1], number, string][] = [
        [{}, 400, "invalid_image"],
        [{ image: "not a file" }, 400, "invalid_image"],
        [{ image: { data: SVG_BYTES, type: "image/png", name: "x.png" } }, 400, "invalid_image"],
        [{ image: { data: await truncatedPng(), type: "image/png" } }, 400, "invalid_image"],
        [{ image: { data: Buffer.from("hello world"), type: "image/jpeg" } }, 400, "invalid_image"],
        [{ image: { data: Buffer.alloc(0), type: "image/png" } }, 400, "invalid_image"],
        [{ image: { data: png, type: "image/png" }, strength: "" }, 400, "invalid_strength"],
        [{ image: { data: png, type: "image/png" }, strength: "1.5" }, 400, "invalid_strength"],
        [{ image: { data: png, type: "image/png" }, strength: "-0.1" }, 400, "invalid_strength"],
        [{ image: { data: png, type: "image/png" }, strength: "abc" }, 400, "invalid_strength"],
        [{ image: { data: png, type: "image/png" }, scale: "3" }, 400, "invalid_scale"],
      ];
      for (const [fields, status, code] of cases) {
        assertError(await enhance(app.url, fields, { from }), status, code);
      }
      const notMultipart = await call(app.url, "/api/enhance", {
        method: "POST",
        from,
        headers: JSON_BROWSER,
        body: "{}",
      });
      assertError(notMultipart, 400, "invalid_request");
      assert.equal((await statusOf(from)).enhance.usage_today, 0);
    });

    it("rejects an upload over 10 MB", async () => {
      const big = Buffer.alloc(11 * 1024 * 1024, 7);
      const res = await enhance(app.url, { image: { data: big, type: "image/png" } }, { from: nextIp() });
      assertError(res, 413, "image_too_large");
    });

    it("rejects a decompression bomb from its header within a second", async () => {
      const started = Date.now();
      const res = await enhance(app.url, { image: { data: bombPng(), type: "image/png" } }, { from: nextIp() });
      assertError(res, 413, "image_too_large");
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    });

    it("counts Free enhancements separately from generations", async () => {
      const from = nextIp();
      const png = await pngOf(16, 16);
      for (let i = 0; i < 5; i++)
        assert.equal((await enhance(app.url, { image: { data: png, type: "image/png" } }, { from })).status, 200);
      assertError(await enhance(app.url, { image: { data: png, type: "image/png" } }, { from }), 429, "rate_limited");
      const s = await statusOf(from);
      assert.equal(s.usage_today, 0);
      assert.equal(s.enhance.usage_today, 5);
      assert.equal((await generate(app.url, { prompt: "still allowed" }, { from })).status, 200);
    });
  });

  describe("other methods and paths", () => {
    it("answers methods an endpoint does not serve with a JSON 405", async () => {
      for (const [method, path, allow] of [
        ["GET", "/api/generate", "POST"],
        ["DELETE", "/api/enhance", "POST"],
        ["POST", "/api/status", "GET"],
        ["GET", "/api/waitlist", "POST"],
      ]) {
        const res = await call(app.url, path, { method, headers: BROWSER, from: nextIp() });
        assertError(res, 405, "method_not_allowed");
        assert.equal(res.headers.allow, allow);
      }
    });
    it("answers unknown API paths with a JSON 404", async () => {
      const res = await call(app.url, "/api/nothing-here", { headers: BROWSER });
      assert.equal(res.status, 404);
      assert.equal(res.json.error.code, "not_found");
      assert.match(String(res.headers["x-request-id"]), /^req_/);
    });
  });

  describe("GET /cdn", { skip: backend !== "embedded" && "images live on the Blob server" }, () => {
    it("404s unknown ids and path tricks", async () => {
      for (const path of [
        "/cdn/0123456789abcdef0123456789abcdef.png",
        "/cdn/..%2F..%2Fdarkroom.db",
        "/cdn/key-pepper",
        "/cdn/%2e%2e%2fkey-pepper",
      ]) {
        const res = await call(app.url, path);
        assert.equal(res.status, 404, path);
        assert.ok(!res.text.includes(app.dataDir));
      }
    });
  });

  describe("POST /api/waitlist", () => {
    it("gives the same answer for new and existing emails, without a key", async () => {
      const from = nextIp();
      const join = (email: string) =>
        call(app.url, "/api/waitlist", {
          method: "POST",
          from,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email, use_case: "book covers" }),
        });
      const first = await join("ada@example.com");
      const again = await join("Ada@Example.com");
      assert.equal(first.status, 200);
      assert.equal(again.status, 200);
      assert.deepEqual(first.json, again.json);
      assertError(await join("not-an-email"), 400, "invalid_email");
      const long = await call(app.url, "/api/waitlist", {
        method: "POST",
        from,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "bob@example.com", use_case: "x".repeat(501) }),
      });
      assertError(long, 400, "invalid_use_case");
      const out = await runScript(app, "waitlist", ["list"]);
      assert.equal(out.code, 0);
      assert.equal(out.lines.filter((l) => l.startsWith("ada@example.com,")).length, 1);
    });
  });
}
