// The operators' console API and the Pro self-view on either backend, against the real app: who may call it, sign-in
// and its limit, the waitlist to a working key, keys and their limits, exact usage counts, the audit log, the CLI.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sessionCookieValue } from "@/lib/http/admin-auth";
import { keyListView, waitlistEntryView } from "@/lib/schemas/admin";
import { type App, createKey, runScript, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { awayFromMinuteEdge, BROWSER, type CallOptions, call, enhance, generate, type Reply } from "../helpers/http";
import { pngOf } from "../helpers/images";

export const ADMIN_TOKEN = `admin-${crypto.randomBytes(24).toString("hex")}`;

/** Every admin endpoint, with a method it serves. */
export const ADMIN_ENDPOINTS: [string, string][] = [
  ["GET", "/api/admin/waitlist"],
  ["GET", "/api/admin/waitlist?format=csv"],
  ["POST", "/api/admin/waitlist/wl_0000000000000000/approve"],
  ["POST", "/api/admin/waitlist/wl_0000000000000000/decline"],
  ["POST", "/api/admin/waitlist/approve"],
  ["GET", "/api/admin/keys"],
  ["POST", "/api/admin/keys"],
  ["GET", "/api/admin/keys/key_000000000000"],
  ["PATCH", "/api/admin/keys/key_000000000000"],
  ["POST", "/api/admin/keys/key_000000000000/revoke"],
  ["GET", "/api/admin/usage?days=30"],
  ["GET", "/api/admin/audit"],
  ["GET", "/api/admin/overview"],
  ["GET", "/api/admin/session"],
];

export function assertError(res: Reply, status: number, code: string) {
  assert.equal(res.status, status, `${status} expected, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.success, false, res.text);
  assert.equal(res.json.error.code, code, res.text);
  assert.match(res.json.error.request_id, /^req_/);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
}

export function runAdminSuite(backend: Backend) {
  let app: App;
  let backends: Backends | undefined;
  let pepper: string;
  let ip = 10;
  const nextIp = () => `127.0.${{ embedded: 40, upstash: 60, redis: 80 }[backend]}.${ip++}`;
  const bearer = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const admin = (p: string, opts: Omit<CallOptions, "body"> & { body?: unknown } = {}) =>
    call(app.url, p, {
      ...opts,
      headers: { ...bearer, ...(opts.body !== undefined && { "Content-Type": "application/json" }), ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  const signUp = async (email: string, useCase = "product shots") => {
    const res = await call(app.url, "/api/waitlist", {
      method: "POST",
      from: nextIp(),
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, use_case: useCase }),
    });
    assert.equal(res.status, 200, res.text);
  };
  const entryOf = async (email: string) => {
    const res = await admin(`/api/admin/waitlist?q=${encodeURIComponent(email)}`);
    assert.equal(res.status, 200, res.text);
    const entry = res.json.entries.find((e: { email: string }) => e.email === email);
    assert.ok(entry, `${email} listed`);
    return entry as { id: string; email: string; status: string; key_id: string | null; use_case: string | null };
  };
  const signIn = async (from = nextIp()) => {
    const res = await call(app.url, "/api/admin/session", {
      method: "POST",
      from,
      headers: { "Content-Type": "application/json", Origin: app.url },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    assert.equal(res.status, 200, res.text);
    const cookie = String(res.headers["set-cookie"]?.[0] ?? "").split(";")[0];
    assert.match(cookie, /^darkroom_admin=v2\./);
    return { cookie, res };
  };

  before(async () => {
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({
      name: `admin-${backend}`,
      env: { ADMIN_TOKEN, PRO_REQUESTS_PER_DAY: "5", STATUS_CALLS_PER_MINUTE: "8", ...backends?.env },
    });
    // The embedded pepper is generated into DATA_DIR by the first request that needs the store.
    await call(app.url, "/api/status", { headers: BROWSER });
    pepper = backends?.env.KEY_PEPPER ?? fs.readFileSync(path.join(app.dataDir, "key-pepper"), "utf8").trim();
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  describe(`admin API access (${backend})`, () => {
    it("refuses no token, a wrong token, a Pro key and a forged or expired cookie on every endpoint", async () => {
      const { key } = await createKey(app, "not-an-admin");
      const cookies = [
        "darkroom_admin=v2.AAAAAAAAAAAAAAAAAAAAAA.forged",
        // Signed with the server's own secret but for another token, or for a session the server never opened.
        `darkroom_admin=${sessionCookieValue(crypto.randomBytes(16).toString("base64url"), "x".repeat(40), pepper)}`,
        `darkroom_admin=${sessionCookieValue(crypto.randomBytes(16).toString("base64url"), ADMIN_TOKEN, pepper)}`,
      ];
      const refusals: CallOptions["headers"][] = [
        {},
        { Authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` },
        { Authorization: `Bearer ${key}` },
        { Authorization: ADMIN_TOKEN },
        ...cookies.map((Cookie) => ({ Cookie, Origin: app.url })),
      ];
      for (const [method, p] of ADMIN_ENDPOINTS) {
        for (const headers of refusals) {
          const res = await call(app.url, p, { method, headers: { ...headers, ...BROWSER }, from: nextIp() });
          assertError(res, 401, "unauthorized");
        }
      }
      // A cookie of our own, tampered with, is refused too.
      const { cookie } = await signIn();
      const tampered = cookie.replace(
        /\.([A-Za-z0-9_-]+)\./,
        (_, id: string) => `.${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}.`,
      );
      assert.notEqual(tampered, cookie);
      assertError(await call(app.url, "/api/admin/keys", { headers: { Cookie: tampered } }), 401, "unauthorized");
    });

    it("signs in to an HttpOnly, SameSite=Strict 12-hour cookie that reads, and changes only from the same origin", async () => {
      const { cookie, res } = await signIn();
      const set = String(res.headers["set-cookie"]?.[0]);
      assert.match(set, /; Path=\//);
      assert.match(set, /; Max-Age=43200/);
      assert.match(set, /; HttpOnly/);
      assert.match(set, /; SameSite=Strict/);
      assert.doesNotMatch(set, /Secure/, "plain http: no Secure flag");
      assert.equal(Date.parse(res.json.expires_at) - Date.now() > 11.9 * 3600_000, true);

      const read = await call(app.url, "/api/admin/keys", { headers: { Cookie: cookie } });
      assert.equal(read.status, 200, read.text);
      assert.ok(Array.isArray(read.json.keys));
      const session = await call(app.url, "/api/admin/session", { headers: { Cookie: cookie } });
      assert.equal(session.json.via, "session");

      const create = (headers: Record<string, string>) =>
        call(app.url, "/api/admin/keys", {
          method: "POST",
          headers: { Cookie: cookie, "Content-Type": "application/json", ...headers },
          body: JSON.stringify({ label: "from the console" }),
        });
      for (const origin of [{ Origin: "http://evil.example" }, {}, { Origin: "null" }] as Record<string, string>[]) {
        assertError(await create(origin), 403, "forbidden");
      }
      const made = await create({ Origin: app.url });
      assert.equal(made.status, 200, made.text);
      assert.match(made.json.key, /^dk_live_/);

      const secure = await call(app.url, "/api/admin/session", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-Proto": "https" },
        body: JSON.stringify({ token: ADMIN_TOKEN }),
      });
      assert.doesNotMatch(
        String(secure.headers["set-cookie"]?.[0]),
        /; Secure/,
        "a client's own X-Forwarded-Proto decides nothing (no trusted proxy here)",
      );
      const crossSite = await call(app.url, "/api/admin/session", {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: "http://evil.example" },
        body: JSON.stringify({ token: ADMIN_TOKEN }),
      });
      assertError(crossSite, 403, "forbidden");

      const out = await call(app.url, "/api/admin/session", {
        method: "DELETE",
        headers: { Cookie: cookie, Origin: app.url },
      });
      assert.equal(out.status, 200, out.text);
      assert.match(String(out.headers["set-cookie"]?.[0]), /^darkroom_admin=; .*Max-Age=0/);
    });

    it("answers 429 after ten failed sign-ins per hour from one address, and still takes the right token", async () => {
      const from = nextIp();
      const attempt = (token: string, at = from) =>
        call(app.url, "/api/admin/session", {
          method: "POST",
          from: at,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ token }),
        });
      const tries = await Promise.all(Array.from({ length: 14 }, (_, i) => attempt(`wrong-${i}-${"x".repeat(32)}`)));
      assert.equal(tries.filter((r) => r.status === 401).length, 10);
      const limited = tries.filter((r) => r.status === 429);
      assert.equal(limited.length, 4);
      assertError(limited[0], 429, "rate_limited");
      assert.ok(Number(limited[0].headers["retry-after"]) > 0);
      assert.equal((await attempt(ADMIN_TOKEN)).status, 200, "a lockout never locks the operator out");
      assertError(await attempt(`wrong-again-${"x".repeat(32)}`), 429, "rate_limited");
      assert.equal((await attempt(ADMIN_TOKEN, nextIp())).status, 200, "another address is not affected");
    });
    it("counts wrong Bearer tokens as failed sign-ins: 429 after ten an hour, but the right token still works", async () => {
      const from = nextIp();
      const bearer = (token: string, at = from) =>
        call(app.url, "/api/admin/keys", { headers: { Authorization: `Bearer ${token}` }, from: at });
      for (let i = 0; i < 10; i++) assertError(await bearer(`wrong-${i}-${"y".repeat(32)}`), 401, "unauthorized");
      const limited = await bearer(`wrong-10-${"y".repeat(32)}`);
      assertError(limited, 429, "rate_limited");
      assert.ok(Number(limited.headers["retry-after"]) > 0);
      assert.equal((await bearer(ADMIN_TOKEN)).status, 200, "the right token is accepted past the limit");
      assertError(await bearer(`wrong-11-${"y".repeat(32)}`), 429, "rate_limited");
      assert.equal((await bearer(ADMIN_TOKEN, nextIp())).status, 200, "another address is not affected");
      // Right tokens cost nothing: a script may call in parallel from one address.
      const other = nextIp();
      const answers = await Promise.all(Array.from({ length: 16 }, () => bearer(ADMIN_TOKEN, other)));
      assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
    });
  });

  describe(`waitlist to key (${backend})`, () => {
    it("approve gives a key that works at once; a second approve is 409", async () => {
      const email = `ada-${backend}@example.com`;
      await signUp(email, "book covers");
      const entry = await entryOf(email);
      assert.deepEqual([entry.status, entry.key_id, entry.use_case], ["pending", null, "book covers"]);
      assert.match(entry.id, /^wl_/);

      const approved = await admin(`/api/admin/waitlist/${entry.id}/approve`, { method: "POST" });
      assert.equal(approved.status, 200, approved.text);
      const { key, key_id, webhook_secret, emailed } = approved.json;
      assert.match(key, /^dk_live_[A-Za-z0-9_-]{43}$/);
      assert.match(key_id, /^key_/);
      assert.match(webhook_secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(emailed, false);
      assert.equal(approved.json.email, email);
      // Without mail set up, the console shows the ready-to-send invitation.
      assert.equal(approved.json.invitation.to, email);
      assert.ok(approved.json.invitation.text.includes(key));
      assert.ok(approved.json.invitation.text.includes(`${app.url}/docs`));

      const used = await generate(app.url, { prompt: "a lighthouse" }, { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(used.status, 200, used.text);
      const status = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
      assert.deepEqual([status.json.plan, status.json.usage_today], ["pro", 1]);

      assertError(await admin(`/api/admin/waitlist/${entry.id}/approve`, { method: "POST" }), 409, "conflict");
      const twice = await Promise.all(
        [1, 2].map(() => admin(`/api/admin/waitlist/${entry.id}/approve`, { method: "POST" })),
      );
      assert.deepEqual(
        twice.map((r) => r.status),
        [409, 409],
      );
      const after = await entryOf(email);
      assert.deepEqual([after.status, after.key_id], ["invited", key_id]);
      const keys = (await admin("/api/admin/keys")).json.keys as { id: string; email: string }[];
      assert.equal(keys.filter((k) => k.email === email).length, 1, "exactly one key for the email");
      assertError(await admin(`/api/admin/waitlist/${entry.id}/decline`, { method: "POST" }), 409, "conflict");
      assertError(await admin("/api/admin/waitlist/wl_ffffffffffffffff/approve", { method: "POST" }), 404, "not_found");
    });

    it("approves exactly once under parallel approvals", async () => {
      const email = `race-${backend}@example.com`;
      await signUp(email);
      const { id } = await entryOf(email);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => admin(`/api/admin/waitlist/${id}/approve`, { method: "POST" })),
      );
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409]);
      const keys = (await admin("/api/admin/keys")).json.keys as { email: string }[];
      assert.equal(keys.filter((k) => k.email === email).length, 1);
    });

    it("declines, approves in bulk, filters, searches, pages and exports CSV", async () => {
      const emails = ["bob", "cy", "di", "eve"].map((n) => `${n}-${backend}@example.com`);
      for (const e of emails.slice(0, 3)) await signUp(e, `use of ${e}`);
      await signUp(emails[3], '=HYPERLINK("http://evil.example")');
      const [bob, cy, di, formula] = await Promise.all(emails.map(entryOf));

      const declined = await admin(`/api/admin/waitlist/${bob.id}/decline`, { method: "POST" });
      assert.equal(declined.status, 200, declined.text);
      assert.equal(declined.json.status, "declined");
      assertError(await admin(`/api/admin/waitlist/${bob.id}/decline`, { method: "POST" }), 409, "conflict");

      const bulk = await admin("/api/admin/waitlist/approve", { method: "POST", body: { ids: [cy.id, di.id, cy.id] } });
      assert.equal(bulk.status, 200, bulk.text);
      assert.deepEqual(
        bulk.json.results.map((r: { id: string; ok: boolean }) => [r.id, r.ok]),
        [
          [cy.id, true],
          [di.id, true],
        ],
      );
      const again = await admin("/api/admin/waitlist/approve", { method: "POST", body: { ids: [cy.id, "wl_x"] } });
      assert.deepEqual(
        again.json.results.map((r: { ok: boolean; error?: { code: string } }) => r.error?.code),
        ["conflict", "not_found"],
      );
      assertError(
        await admin("/api/admin/waitlist/approve", { method: "POST", body: { ids: [] } }),
        400,
        "invalid_request",
      );

      const listed = (status: string) => admin(`/api/admin/waitlist?status=${status}&q=-${backend}@`);
      const declinedList = (await listed("declined")).json.entries.map((e: { email: string }) => e.email);
      assert.deepEqual(declinedList, [bob.email]);
      const invited = (await listed("invited")).json.entries.map((e: { email: string }) => e.email);
      assert.ok(invited.includes(cy.email) && invited.includes(di.email) && !invited.includes(bob.email));
      const pending = (await listed("pending")).json;
      assert.ok(pending.entries.every((e: { status: string }) => e.status === "pending"));
      assert.ok(pending.entries.some((e: { email: string }) => e.email === formula.email));
      assertError(await admin("/api/admin/waitlist?status=lost"), 400, "invalid_request");

      const search = await admin(`/api/admin/waitlist?q=${encodeURIComponent("USE OF CY-")}`);
      assert.deepEqual(
        search.json.entries.map((e: { email: string }) => e.email),
        [cy.email],
      );
      const all = (await admin(`/api/admin/waitlist?q=-${backend}@`)).json;
      const page = (await admin(`/api/admin/waitlist?q=-${backend}@&limit=2&offset=1`)).json;
      assert.equal(page.total, all.total);
      assert.deepEqual(page.entries, all.entries.slice(1, 3));
      assert.equal(page.next_offset, all.total > 3 ? 3 : null);

      const csv = await admin(`/api/admin/waitlist?format=csv&q=-${backend}@`);
      assert.equal(csv.status, 200);
      assert.match(String(csv.headers["content-type"]), /^text\/csv/);
      assert.match(String(csv.headers["content-disposition"]), /attachment; filename="waitlist.csv"/);
      const lines = csv.text.trim().split("\r\n");
      assert.equal(lines[0], "id,email,use_case,created_at,status,key_id,decided_at");
      assert.equal(lines.length, all.total + 1);
      assert.ok(
        lines.some((l) => l.startsWith(`${bob.id},${bob.email},use of ${bob.email},`) && l.includes(",declined,")),
      );
      // A spreadsheet must not run the use case that looks like a formula.
      assert.ok(
        lines.some((l) => l.startsWith(`${formula.id},${formula.email},"'=HYPERLINK(""http://evil.example"")",`)),
      );
    });
  });

  describe(`keys (${backend})`, () => {
    it("creates a key with its own limit, honoured at once; changes and clears it; revoke stops the next call", async () => {
      const made = await admin("/api/admin/keys", {
        method: "POST",
        body: { label: "limited", email: "Lim@Example.com", daily_limit: 2 },
      });
      assert.equal(made.status, 200, made.text);
      assert.equal(made.json.email, "lim@example.com");
      assert.equal(made.json.daily_limit, 2);
      assert.match(made.json.webhook_secret, /^whsec_/);
      const auth = { Authorization: `Bearer ${made.json.key}` };
      const gen = (n: number) => generate(app.url, { prompt: `a fox ${n}` }, { headers: auth, from: nextIp() });
      assert.equal((await gen(1)).status, 200);
      const second = await gen(2);
      assert.equal(second.status, 200);
      assert.equal(second.headers["x-ratelimit-limit"], "2");
      assertError(await gen(3), 429, "rate_limited");

      const id = made.json.key_id;
      const patched = await admin(`/api/admin/keys/${id}`, { method: "PATCH", body: { daily_limit: 3 } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual([patched.json.daily_limit, patched.json.default_limit], [3, false]);
      assert.equal((await gen(4)).status, 200);
      assertError(await gen(5), 429, "rate_limited");
      const reset = await admin(`/api/admin/keys/${id}`, { method: "PATCH", body: { daily_limit: null } });
      assert.deepEqual([reset.json.daily_limit, reset.json.default_limit], [5, true]);
      assert.equal((await gen(6)).status, 200, "back to PRO_REQUESTS_PER_DAY (5)");
      for (const body of [{ daily_limit: -1 }, { daily_limit: 1.5 }, { daily_limit: "3" }, {}]) {
        assertError(await admin(`/api/admin/keys/${id}`, { method: "PATCH", body }), 400, "invalid_request");
      }
      assertError(
        await admin("/api/admin/keys/key_missing", { method: "PATCH", body: { daily_limit: 1 } }),
        404,
        "not_found",
      );

      const listed = (await admin("/api/admin/keys")).json.keys.find((k: { id: string }) => k.id === id);
      assert.deepEqual(
        {
          label: listed.label,
          email: listed.email,
          last4: listed.last4,
          usage_today: listed.usage_today,
          usage_30d: listed.usage_30d,
          daily_limit: listed.daily_limit,
          revoked_at: listed.revoked_at,
        },
        {
          label: "limited",
          email: "lim@example.com",
          last4: made.json.key.slice(-4),
          usage_today: 4,
          usage_30d: 4,
          daily_limit: 5,
          revoked_at: null,
        },
      );
      assert.ok(Date.parse(listed.created_at) <= Date.parse(listed.last_used_at));
      assert.ok(Date.now() - Date.parse(listed.last_used_at) < 60_000);
      assert.ok(!JSON.stringify(listed).includes(made.json.key), "the key itself is never listed");

      const revoked = await admin(`/api/admin/keys/${id}/revoke`, { method: "POST" });
      assert.equal(revoked.status, 200, revoked.text);
      assert.ok(revoked.json.revoked_at);
      assert.equal(revoked.json.id, id);
      assertError(await gen(7), 401, "unauthorized");
      const again = await admin(`/api/admin/keys/${id}/revoke`, { method: "POST" });
      assert.equal(again.json.revoked_at, revoked.json.revoked_at, "revoking twice keeps the first time");
      assertError(await admin("/api/admin/keys/key_missing/revoke", { method: "POST" }), 404, "not_found");
      for (const body of [{}, { label: "" }, { label: "x", email: "nope" }, { label: "x", daily_limit: -2 }]) {
        const res = await admin("/api/admin/keys", { method: "POST", body });
        assert.equal(res.status, 400, res.text);
      }
    });
  });

  describe(`usage (${backend})`, () => {
    it("counts match the requests made, per plan and outcome, also when they run in parallel", async () => {
      const readAdmin = async () => (await admin("/api/admin/usage?days=1")).json;
      const before = await readAdmin();
      const { key } = await createKey(app, "counted");
      const auth = { Authorization: `Bearer ${key}` };
      const png = await pngOf(24, 24);
      const results = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) =>
          generate(app.url, { prompt: `parallel ${i}`, model: "alpha-schnell" }, { headers: auth, from: nextIp() }),
        ),
        enhance(app.url, { image: { data: png, type: "image/png" } }, { headers: auth, from: nextIp() }),
        generate(app.url, { prompt: "" }, { headers: auth, from: nextIp() }),
        generate(app.url, { prompt: "a free one" }, { from: nextIp() }),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 200, 200, 400, 200],
      );

      const own = await call(app.url, "/api/usage?days=7", { headers: auth });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.json.success, true);
      assert.equal(own.json.days.length, 7);
      const dates = own.json.days.map((d: { date: string }) => d.date);
      assert.deepEqual(dates, [...dates].sort(), "oldest first");
      assert.equal(dates.at(-1), new Date().toISOString().slice(0, 10));
      const today = own.json.days.at(-1);
      assert.deepEqual(
        { generate: today.generate, enhance: today.enhance, failed: today.failed, by_model: today.by_model },
        { generate: 4, enhance: 1, failed: 0, by_model: { "alpha-schnell": 4, fast: 1 } },
      );
      assert.equal(own.json.total, 5);
      assert.ok(own.json.days.slice(0, -1).every((d: { generate: number }) => d.generate === 0));

      const now = await readAdmin();
      const delta = (pick: (d: { by_plan: Record<string, number>; succeeded: number; refused: number }) => number) =>
        pick(now.days[0]) - pick(before.days[0]);
      assert.equal(
        delta((d) => d.by_plan.pro ?? 0),
        6,
      );
      assert.equal(
        delta((d) => d.by_plan.free ?? 0),
        1,
      );
      assert.equal(
        delta((d) => d.refused),
        1,
      );
      assert.equal(
        delta((d) => d.succeeded),
        6,
      );
      const rows = now.series.filter((r: { plan: string }) => r.plan === "pro");
      assert.ok(
        rows.every((r: Record<string, unknown>) =>
          ["date", "plan", "endpoint", "model", "engine", "outcome", "count"].every((k) => k in r),
        ),
      );
      const perKey = (await admin(`/api/admin/usage?days=1&key_id=${await createdKeyId(key)}`)).json;
      assert.equal(perKey.days[0].total, 6);
      assert.equal(perKey.days[0].refused, 1);
      assertError(await admin("/api/admin/usage?days=91"), 400, "invalid_request");
    });

    it("counts an async job once, when it ends, and a replayed answer not at all", async () => {
      const { key } = await createKey(app, "async-counted");
      const auth = { Authorization: `Bearer ${key}`, Prefer: "respond-async", "Idempotency-Key": "counted-job-1" };
      const body = { prompt: "a counted job", model: "alpha-schnell" };
      const accepted = await generate(app.url, body, { headers: auth, from: nextIp() });
      assert.equal(accepted.status, 202, accepted.text);
      const replayed = await generate(app.url, body, { headers: auth, from: nextIp() });
      assert.equal(replayed.status, 202, replayed.text);
      assert.equal(replayed.headers["idempotent-replayed"], "true");
      assert.equal(replayed.json.id, accepted.json.id);

      const deadline = Date.now() + 30_000;
      let status = "queued";
      while (status !== "succeeded" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const job = await call(app.url, `/api/jobs/${accepted.json.id}`, {
          headers: { Authorization: auth.Authorization },
        });
        status = job.json.status;
      }
      assert.equal(status, "succeeded");
      // The job's line is written as it ends; read a few times (the self-view counts on the status guard).
      let today: { generate: number; failed: number; by_model: Record<string, number> } | undefined;
      for (let i = 0; i < 5 && !today?.generate; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 1000));
        const own = await call(app.url, "/api/usage?days=1", { headers: { Authorization: auth.Authorization } });
        assert.equal(own.status, 200, own.text);
        today = own.json.days.at(-1);
      }
      assert.deepEqual(
        { generate: today?.generate, failed: today?.failed, by_model: today?.by_model },
        { generate: 1, failed: 0, by_model: { "alpha-schnell": 1 } },
      );
    });

    it("revokes a key and, when asked, deletes every image it made", async () => {
      const { key, id } = await createKey(app, "leaving");
      const made = [];
      for (const prompt of ["a parting gift", "another one"]) {
        const res = await generate(
          app.url,
          { prompt },
          { headers: { Authorization: `Bearer ${key}` }, from: nextIp() },
        );
        assert.equal(res.status, 200, res.text);
        made.push(res.json as { url: string });
      }
      for (const image of made) assert.equal((await fetch(image.url)).status, 200);
      assertError(
        await admin(`/api/admin/keys/${id}/revoke?delete_images=maybe`, { method: "POST" }),
        400,
        "invalid_request",
      );

      const revoked = await admin(`/api/admin/keys/${id}/revoke?delete_images=true`, { method: "POST" });
      assert.equal(revoked.status, 200, revoked.text);
      assert.ok(revoked.json.revoked_at, revoked.text);
      assert.equal(revoked.json.images_deleted, 2);
      for (const image of made) assert.equal((await fetch(image.url)).status, 404);
      const after = await generate(app.url, { prompt: "too late" }, { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(after.status, 401, after.text);
      const audit = (await admin("/api/admin/audit")).json.entries as { action: string; target: string }[];
      assert.ok(audit.some((e) => e.action === "images_delete" && e.target === id));
    });

    async function createdKeyId(key: string): Promise<string> {
      const account = await call(app.url, "/api/account", { headers: { Authorization: `Bearer ${key}` } });
      return account.json.key.id;
    }

    it("/api/account and /api/usage need a Pro key and count on the status guard", async () => {
      const { key, id } = await createKey(app, "self-view");
      const auth = { Authorization: `Bearer ${key}` };
      for (const p of ["/api/account", "/api/usage"]) {
        assertError(await call(app.url, p, { from: nextIp() }), 401, "unauthorized");
        assertError(await call(app.url, p, { headers: BROWSER, from: nextIp() }), 401, "unauthorized");
        assertError(await call(app.url, p, { headers: { Authorization: "Bearer dk_live_nope" } }), 401, "unauthorized");
      }
      await awayFromMinuteEdge(15_000);
      const account = await call(app.url, "/api/account", { headers: auth });
      assert.equal(account.status, 200, account.text);
      assert.deepEqual(Object.keys(account.json.key).sort(), [
        "created_at",
        "daily_limit",
        "email",
        "id",
        "label",
        "last4",
      ]);
      assert.deepEqual(
        [account.json.key.id, account.json.key.label, account.json.key.last4, account.json.key.daily_limit],
        [id, "self-view", key.slice(-4), 5],
      );
      assert.match(account.json.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(
        (await call(app.url, "/api/account", { headers: auth })).json.webhook_secret,
        account.json.webhook_secret,
      );
      assertError(await call(app.url, "/api/usage?days=0", { headers: auth }), 400, "invalid_request");
      assertError(await call(app.url, "/api/usage?days=91", { headers: auth }), 400, "invalid_request");
      assert.equal((await call(app.url, "/api/usage?days=90", { headers: auth })).json.days.length, 90);
      // 5 calls so far; the status guard allows 8 a minute, shared with /api/status.
      assert.equal((await call(app.url, "/api/status", { headers: auth })).status, 200);
      assert.equal((await call(app.url, "/api/usage", { headers: auth })).json.days.length, 30);
      assert.equal((await call(app.url, "/api/account", { headers: auth })).status, 200);
      assertError(await call(app.url, "/api/account", { headers: auth }), 429, "rate_limited");
      assertError(await call(app.url, "/api/usage", { headers: auth }), 429, "rate_limited");
      assertError(await call(app.url, "/api/status", { headers: auth }), 429, "rate_limited");
    });
  });

  describe(`console extras (${backend})`, () => {
    it("shows queue depth, the free caps used today and provider routes on the overview", async () => {
      assert.equal((await generate(app.url, { prompt: "a free cap" }, { from: nextIp() })).status, 200);
      const res = await admin("/api/admin/overview");
      assert.equal(res.status, 200, res.text);
      // The store that runs, down to the Redis transport.
      assert.equal(res.json.store, { embedded: "sqlite", upstash: "upstash", redis: "redis" }[backend]);
      assert.deepEqual(Object.keys(res.json.queues.generate).sort(), [
        "concurrency",
        "max_queued",
        "queued",
        "running",
      ]);
      assert.equal(res.json.queues.generate.concurrency, 8);
      assert.ok(res.json.free_caps.generate.used >= 1);
      assert.equal(res.json.free_caps.generate.limit, 1000);
      assert.deepEqual(res.json.routes, [], "every model on the preview engine: no provider routes");
      assert.equal(res.json.preview_models.length, 4);
    });

    it("logs every admin action with the time, the target and the actor's IP, and its network for display", async () => {
      const res = await admin("/api/admin/audit?limit=1000");
      assert.equal(res.status, 200, res.text);
      const entries = res.json.entries as {
        time: string;
        action: string;
        target: string;
        ip: string | null;
        network: string | null;
      }[];
      const actions = new Set(entries.map((e) => e.action));
      for (const a of ["sign_in", "sign_out", "approve", "decline", "key_create", "key_revoke", "limit_change"]) {
        assert.ok(actions.has(a), `${a} is in the audit log`);
      }
      assert.ok(entries.some((e) => e.ip !== null));
      for (const e of entries) {
        if (e.ip === null) continue;
        assert.match(e.ip, /^127\.0\.\d+\.\d+$/, "the actor's address");
        assert.equal(e.network, `${e.ip.split(".").slice(0, 3).join(".")}.0/24`, "and its network, for display");
      }
      assert.ok(entries.every((e) => !Number.isNaN(Date.parse(e.time)) && e.target.length > 0));
      const times = entries.map((e) => e.time);
      assert.deepEqual(times, [...times].sort().reverse(), "newest first");
    });

    it("the CLI approves, declines and sets limits on the same store", async () => {
      const emails = ["cli-a", "cli-b"].map((n) => `${n}-${backend}@example.com`);
      for (const e of emails) await signUp(e);
      const list = await runScript(app, "waitlist", ["list", "--format", "json"]);
      assert.equal(list.code, 0, list.stderr);
      // The same shape as GET /api/admin/waitlist's entries, one schema for both.
      const entries = waitlistEntryView.array().parse(JSON.parse(list.lines.join("\n")));
      const [a, b] = emails.map((e) => entries.find((x) => x.email === e));
      assert.ok(a && b && a.status === "pending");

      const approved = await runScript(app, "waitlist", ["approve", a.id]);
      assert.equal(approved.code, 0, approved.stderr);
      const key = approved.lines.at(-1) ?? "";
      assert.match(key, /^dk_live_/);
      assert.ok(
        approved.lines.some((l) => /whsec_/.test(l)),
        "the signing secret is printed above the key",
      );
      assert.equal(
        (await generate(app.url, { prompt: "cli" }, { headers: { Authorization: `Bearer ${key}` } })).status,
        200,
      );
      const twice = await runScript(app, "keys", ["approve", a.id]);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /already approved/);

      assert.equal((await runScript(app, "keys", ["decline", b.id])).code, 0);
      assert.equal((await entryOf(b.email)).status, "declined");

      const keyId = (await entryOf(a.email)).key_id ?? "";
      const limited = await runScript(app, "keys", ["limit", keyId, "1"]);
      assert.equal(limited.code, 0, limited.stderr);
      assertError(
        await generate(app.url, { prompt: "cli 2" }, { headers: { Authorization: `Bearer ${key}` } }),
        429,
        "rate_limited",
      );
      assert.equal((await runScript(app, "waitlist", ["limit", keyId, "default"])).code, 0);
      assert.equal(
        (await generate(app.url, { prompt: "cli 3" }, { headers: { Authorization: `Bearer ${key}` } })).status,
        200,
      );
      assert.equal((await runScript(app, "keys", ["limit", keyId, "-3"])).code, 2);

      // The keys as GET /api/admin/keys lists them, with the limit just set.
      const listed = await runScript(app, "keys", ["list", "--json"]);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = keyListView.shape.keys.parse(JSON.parse(listed.lines.join("\n")));
      const api = (await admin("/api/admin/keys")).json.keys as { id: string; daily_limit: number }[];
      const stable = (k?: { id: string; label: string; last4: string; daily_limit: number; default_limit: boolean }) =>
        k && [k.id, k.label, k.last4, k.daily_limit, k.default_limit];
      assert.deepEqual(
        stable(rows.find((k) => k.id === keyId)),
        stable(keyListView.shape.keys.parse(api).find((k) => k.id === keyId)),
      );
      assert.ok(stable(rows.find((k) => k.id === keyId)));
      assert.equal(
        (await runScript(app, "keys", ["create", "--label", "bad", "--email", "not-an-email"])).code,
        2,
        "the CLI validates with the API's schema",
      );

      const created = await runScript(app, "keys", ["create", "--label", "with secret"]);
      const at = created.lines.findIndex((l) => /whsec_[A-Za-z0-9+/]{43}=/.test(l));
      assert.ok(at >= 0 && at < created.lines.length - 1, "the secret comes before the key's last line");
      const audit = (await admin("/api/admin/audit")).json.entries as {
        action: string;
        actor: string;
        target: string;
      }[];
      assert.ok(audit.some((e) => e.action === "approve" && e.actor === "cli" && e.target === a.id));
    });
  });
}
