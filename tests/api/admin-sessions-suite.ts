// Issue 19's admin findings against the running app, on each backend: server-side console sessions (sign-out ends
// a copied cookie, sign out everywhere, a new ADMIN_TOKEN ends them all), the lockout that never locks out the right
// token, failed sign-ins and lockouts in the audit log, the cookie's Secure flag from trusted sources only, the cron
// route's attempt limit, and the waitlist's /48 and daily caps with paging and search done in the store.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type App, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { type CallOptions, call } from "../helpers/http";
import { assertError } from "./admin-suite";

const token = () => `admin-${crypto.randomBytes(24).toString("hex")}`;
const CRON_SECRET = `cron-${crypto.randomBytes(16).toString("hex")}`;
/** The only trusted proxy: requests from it may say who the client is and how it reached the proxy. */
const PROXY = "127.0.9.1";
const PER_IP = 2;
const DAILY_CAP = 24;

export function runAdminSessionsSuite(backend: Backend) {
  let app: App;
  let backends: Backends | undefined;
  let adminToken = token();
  let ip = 10;
  const nextIp = () => `127.0.${{ embedded: 41, upstash: 61, redis: 81 }[backend]}.${ip++}`;
  /** Signups answered 200 so far, all counted on today's global cap. */
  let signups = 0;

  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const signIn = async (opts: { from?: string; origin?: boolean; headers?: Record<string, string> } = {}) => {
    const res = await call(app.url, "/api/admin/session", {
      method: "POST",
      from: opts.from ?? nextIp(),
      ...json({ token: adminToken }, { ...(opts.origin !== false && { Origin: app.url }), ...opts.headers }),
    });
    assert.equal(res.status, 200, res.text);
    const setCookie = String(res.headers["set-cookie"]?.[0] ?? "");
    return { cookie: setCookie.split(";")[0], setCookie };
  };
  const withCookie = (cookie: string, p = "/api/admin/keys", opts: CallOptions = {}) =>
    call(app.url, p, { ...opts, headers: { Cookie: cookie, Origin: app.url, ...opts.headers } });
  /** The Pro key a cookie mints: what a stolen cookie was good for. */
  const mintWith = (cookie: string) =>
    withCookie(cookie, "/api/admin/keys", { method: "POST", ...json({ label: "minted with a cookie" }) });
  const bearer = (p: string, tokenValue = adminToken, from = nextIp()) =>
    call(app.url, p, { headers: { Authorization: `Bearer ${tokenValue}` }, from });
  const auditEntries = async () => {
    const res = await bearer("/api/admin/audit?limit=1000");
    assert.equal(res.status, 200, res.text);
    return res.json.entries as { action: string; ip: string | null; actor: string; detail: string | null }[];
  };
  const signUp = (email: string, opts: { from?: string; forwardedFor?: string; useCase?: string } = {}) =>
    call(app.url, "/api/waitlist", {
      method: "POST",
      from: opts.forwardedFor ? PROXY : (opts.from ?? nextIp()),
      ...json(
        { email, use_case: opts.useCase ?? "testing" },
        opts.forwardedFor ? { "X-Forwarded-For": opts.forwardedFor } : {},
      ),
    }).then((res) => {
      if (res.status === 200) signups++;
      return res;
    });

  before(async () => {
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({
      name: `admin-sessions-${backend}`,
      env: {
        ADMIN_TOKEN: adminToken,
        CRON_SECRET,
        TRUSTED_PROXIES: PROXY,
        WAITLIST_SIGNUPS_PER_DAY: String(PER_IP),
        WAITLIST_SIGNUPS_GLOBAL_PER_DAY: String(DAILY_CAP),
        ...backends?.env,
      },
    });
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  describe(`console sessions live in the store (${backend})`, () => {
    it("refuses a cookie copied before sign-out, after it: no reads, no minted keys, no console page", async () => {
      const { cookie } = await signIn();
      const copy = `${cookie}`;
      assert.equal((await withCookie(copy)).status, 200);
      assert.equal((await mintWith(copy)).status, 200, "the session works before sign-out");

      const out = await withCookie(cookie, "/api/admin/session", { method: "DELETE" });
      assert.equal(out.status, 200, out.text);
      assert.match(String(out.headers["set-cookie"]?.[0]), /^darkroom_admin=; .*Max-Age=0/);

      assertError(await withCookie(copy), 401, "unauthorized");
      assertError(await mintWith(copy), 401, "unauthorized");
      assertError(await withCookie(copy, "/api/admin/session"), 401, "unauthorized");
      const page = await call(app.url, "/admin", { headers: { Cookie: copy } });
      assert.equal(page.status, 200);
      assert.match(page.text, /Admin token/, "the console page asks to sign in again");
      assert.doesNotMatch(page.text, /Sign out everywhere/);
    });

    it("sign out everywhere ends every session at once; the admin token as a Bearer keeps working", async () => {
      const [a, b] = [await signIn(), await signIn()];
      for (const s of [a, b]) assert.equal((await withCookie(s.cookie)).status, 200);
      const page = await call(app.url, "/admin", { headers: { Cookie: b.cookie } });
      assert.match(page.text, /Sign out everywhere/, "the console offers it");

      // A cookie call that changes something must come from the console's own page.
      assertError(
        await withCookie(a.cookie, "/api/admin/sessions", {
          method: "DELETE",
          headers: { Origin: "http://evil.example" },
        }),
        403,
        "forbidden",
      );
      const ended = await withCookie(a.cookie, "/api/admin/sessions", { method: "DELETE" });
      assert.equal(ended.status, 200, ended.text);
      assert.ok(ended.json.sessions_ended >= 2, ended.text);
      assert.equal(ended.json.signed_in, false);
      for (const s of [a, b]) {
        assertError(await withCookie(s.cookie), 401, "unauthorized");
        assertError(await mintWith(s.cookie), 401, "unauthorized");
      }
      assert.equal((await bearer("/api/admin/keys")).status, 200);
      assert.ok((await auditEntries()).some((e) => e.action === "sign_out_everywhere"));
      // Signing in again works as before.
      assert.equal((await withCookie((await signIn()).cookie)).status, 200);
    });
  });

  describe(`the lockout slows guesses but never locks the operator out (${backend})`, () => {
    it("takes the right token after ten wrong sign-ins, while an eleventh wrong one gets 429; all audited", async () => {
      const from = nextIp();
      const attempt = (t: string) =>
        call(app.url, "/api/admin/session", { method: "POST", from, ...json({ token: t }) });
      for (let i = 0; i < 10; i++) assertError(await attempt(`wrong-${i}-${"z".repeat(32)}`), 401, "unauthorized");
      const locked = await attempt(`wrong-10-${"z".repeat(32)}`);
      assertError(locked, 429, "rate_limited");
      assert.ok(Number(locked.headers["retry-after"]) > 0);

      const right = await attempt(adminToken);
      assert.equal(right.status, 200, right.text);
      const cookie = String(right.headers["set-cookie"]?.[0]).split(";")[0];
      assert.equal((await withCookie(cookie)).status, 200, "and its session works");
      assertError(await attempt(`wrong-11-${"z".repeat(32)}`), 429, "rate_limited");
      // The same address with the token as a Bearer: the right one in, a wrong one 429.
      assert.equal((await bearer("/api/admin/keys", adminToken, from)).status, 200);
      assertError(await bearer("/api/admin/keys", `wrong-${"q".repeat(32)}`, from), 429, "rate_limited");

      const mine = (await auditEntries()).filter((e) => e.ip === from);
      assert.equal(mine.filter((e) => e.action === "sign_in_failed").length, 10, "each counted failure is audited");
      assert.equal(mine.filter((e) => e.action === "lockout").length, 1, "the lockout once, when it starts");
      assert.ok(mine.some((e) => e.action === "sign_in"));
    });

    it("takes every attempt before comparing: of 24 parallel wrong Bearer tokens exactly 10 are 401", async () => {
      const from = nextIp();
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => bearer("/api/admin/keys", `parallel-${i}-${"w".repeat(32)}`, from)),
      );
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 10, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 429).length, 14, statuses.join(","));
      assert.equal((await bearer("/api/admin/keys", adminToken, from)).status, 200);
    });
  });

  describe(`the session cookie's Secure flag (${backend})`, () => {
    it("ignores a client's own X-Forwarded-Proto, and believes a trusted proxy's", async () => {
      const direct = await signIn({ headers: { "X-Forwarded-Proto": "https" }, origin: false });
      assert.doesNotMatch(direct.setCookie, /; Secure/, "an untrusted client cannot choose");
      const plain = await signIn({ from: PROXY, origin: false, headers: { "X-Forwarded-Proto": "http" } });
      assert.doesNotMatch(plain.setCookie, /; Secure/);
      const proxied = await signIn({
        from: PROXY,
        origin: false,
        headers: { "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9" },
      });
      assert.match(proxied.setCookie, /; Secure/, "the trusted proxy says the client came over https");
      assert.match(proxied.setCookie, /; HttpOnly; SameSite=Strict/);
      const out = await withCookie(proxied.cookie, "/api/admin/session", {
        method: "DELETE",
        from: PROXY,
        headers: { "X-Forwarded-Proto": "https", Origin: `https://${new URL(app.url).host}` },
      });
      assert.equal(out.status, 200, out.text);
      assert.match(String(out.headers["set-cookie"]?.[0]), /; Secure/);
    });
  });

  describe(`the cron route (${backend})`, () => {
    it("limits wrong secrets per address and still serves the right one", async () => {
      const from = nextIp();
      const cron = (secret: string) =>
        call(app.url, "/api/cron/sweep-images", { headers: { Authorization: `Bearer ${secret}` }, from });
      assert.equal((await cron(CRON_SECRET)).status, 200);
      // Same length as the secret, and other lengths: all just unknown.
      const sameLength = `${CRON_SECRET.slice(0, -1)}${CRON_SECRET.endsWith("0") ? "1" : "0"}`;
      for (let i = 0; i < 10; i++) {
        assertError(await cron(i % 2 === 0 ? sameLength : `${sameLength}${i}`), 404, "not_found");
      }
      const limited = await cron(sameLength);
      assertError(limited, 429, "rate_limited");
      assert.ok(Number(limited.headers["retry-after"]) > 0);
      const right = await cron(CRON_SECRET);
      assert.equal(right.status, 200, right.text);
      assert.equal(right.json.success, true);
      assertError(await cron(`wrong-${sameLength}`), 429, "rate_limited");
      assert.equal((await call(app.url, "/api/cron/sweep-images", { from: nextIp() })).status, 404);
    });
  });

  describe(`waitlist limits and the console's waitlist (${backend})`, () => {
    it("counts IPv6 signups per /64 and all the /64s of a /48 together (4× the per-IP limit)", async () => {
      const net48 = `2001:db8:${backend === "embedded" ? "a1" : backend === "upstash" ? "a2" : "a3"}`;
      // Per /64: two signups, the third refused, whatever address inside the /64.
      assert.equal((await signUp(`v6-0a@${backend}.example`, { forwardedFor: `${net48}:0::1` })).status, 200);
      assert.equal((await signUp(`v6-0b@${backend}.example`, { forwardedFor: `${net48}:0::2` })).status, 200);
      assertError(await signUp(`v6-0c@${backend}.example`, { forwardedFor: `${net48}:0::3` }), 429, "rate_limited");
      // Other /64s of the same /48: six more fit (8 in all), then the whole /48 is refused.
      const answers = [];
      for (let n = 1; n <= 8; n++) {
        answers.push((await signUp(`v6-${n}@${backend}.example`, { forwardedFor: `${net48}:${n}::1` })).status);
      }
      assert.deepEqual(answers, [200, 200, 200, 200, 200, 200, 429, 429]);
      const refused = await signUp(`v6-x@${backend}.example`, { forwardedFor: `${net48}:ffff::1` });
      assertError(refused, 429, "rate_limited");
      assert.match(refused.json.error.message, /IPv6 network/);
      // Another /48 is not affected.
      assert.equal((await signUp(`v6-y@${backend}.example`, { forwardedFor: "2001:db8:b0b::1" })).status, 200);
    });

    it("pages, filters and searches the waitlist in the store", async () => {
      const tag = `pg${crypto.randomBytes(3).toString("hex")}`;
      const emails = Array.from({ length: 7 }, (_, i) => `${tag}-${i}@${backend}.example`);
      for (const [i, email] of emails.entries()) {
        const res = await signUp(email, { useCase: i === 3 ? `Posters for 100% OFF_SALE ${tag.toUpperCase()}` : "x" });
        assert.equal(res.status, 200, res.text);
        // Distinct signup times, so the order is the signup order.
        await new Promise((r) => setTimeout(r, 5));
      }
      const page = async (query: string) => {
        const res = await bearer(`/api/admin/waitlist?${query}`);
        assert.equal(res.status, 200, res.text);
        return res.json as {
          entries: { email: string; id: string; status: string }[];
          total: number;
          next_offset: number | null;
          counts: Record<string, number>;
        };
      };
      const first = await page(`q=${tag}&limit=3`);
      assert.deepEqual(
        first.entries.map((e) => e.email),
        emails.slice(0, 3),
      );
      assert.equal(first.total, 7);
      assert.equal(first.next_offset, 3);
      const last = await page(`q=${tag}&limit=3&offset=6`);
      assert.deepEqual(
        last.entries.map((e) => e.email),
        emails.slice(6),
      );
      assert.equal(last.next_offset, null);
      assert.equal((await page(`q=${tag}&limit=3&offset=9`)).entries.length, 0);

      // The use case is searched too, case-insensitively; LIKE's wildcards are plain characters.
      const sale = await page(`q=${encodeURIComponent(`off_sale ${tag}`)}`);
      assert.deepEqual(
        sale.entries.map((e) => e.email),
        [emails[3]],
      );
      assert.deepEqual(
        (await page(`q=${encodeURIComponent("100%")}&limit=1000`)).entries
          .map((e) => e.email)
          .filter((e) => e.startsWith(tag)),
        [emails[3]],
      );
      assert.equal((await page(`q=${encodeURIComponent(`${tag}%`)}`)).total, 0);
      assert.equal((await page(`q=${encodeURIComponent(`${tag}_`)}`)).total, 0);

      const res = await call(app.url, `/api/admin/waitlist/${first.entries[1].id}/decline`, {
        method: "POST",
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      assert.equal(res.status, 200, res.text);
      const onlyDeclined = await page(`q=${tag}&status=declined`);
      assert.deepEqual(
        onlyDeclined.entries.map((e) => e.email),
        [emails[1]],
      );
      const pending = await page(`q=${tag}&status=pending&limit=2&offset=2`);
      assert.deepEqual(
        pending.entries.map((e) => e.email),
        [emails[3], emails[4]],
      );
      assert.equal(pending.total, 6);
      const all = await page("limit=1");
      assert.equal(all.counts.pending + all.counts.invited + all.counts.declined, all.total);
      assert.ok(all.counts.declined >= 1);
    });

    it("stops taking signups at the global daily cap, from every address", async () => {
      let n = 0;
      while (signups < DAILY_CAP) {
        const res = await signUp(`cap-${n++}@${backend}.example`);
        assert.equal(res.status, 200, `signup ${signups + 1} of ${DAILY_CAP}: ${res.text}`);
      }
      for (const from of [nextIp(), nextIp()]) {
        const refused = await signUp(`cap-over-${from}@${backend}.example`, { from });
        assertError(refused, 429, "rate_limited");
        assert.match(refused.json.error.message, /no more signups today/);
        assert.ok(Number(refused.headers["retry-after"]) > 0);
      }
    });
  });

  describe(`a new ADMIN_TOKEN (${backend})`, () => {
    it("ends every session, and only the new token opens the API; PUBLIC_APP_URL's https makes the cookie Secure", async () => {
      const old = await signIn();
      assert.equal((await withCookie(old.cookie)).status, 200);
      const before = adminToken;
      adminToken = token();
      app.env.ADMIN_TOKEN = adminToken;
      app.env.PUBLIC_APP_URL = "https://console.darkroom.example";
      await app.restart();

      assertError(await withCookie(old.cookie), 401, "unauthorized");
      assertError(await mintWith(old.cookie), 401, "unauthorized");
      assertError(await bearer("/api/admin/keys", before), 401, "unauthorized");
      assert.equal((await bearer("/api/admin/keys")).status, 200);

      // The operator's public origin is https: the cookie is Secure whatever this hop looked like.
      const fresh = await signIn({ origin: false });
      assert.match(fresh.setCookie, /; Secure/);
      assert.equal(
        (await call(app.url, "/api/admin/keys", { headers: { Cookie: fresh.cookie } })).status,
        200,
        "the new token's session works",
      );
    });
  });
}
