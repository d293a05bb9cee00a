// The admin attempt counter's rules on the real SQLite store: counted before comparing, the right secret accepted
// past the limit and given back, failures and the lockout audited once; and with a store that cannot count, wrong
// secrets fail closed while the right one still opens.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { attemptAdminToken, attemptSecret, SIGN_IN_ATTEMPTS } from "@/lib/console/sign-in";
import { StoreUnavailable } from "@/lib/errors";
import { openSqliteBackend, type SqliteBackend } from "@/lib/store/sqlite/backend";

const TOKEN = "t".repeat(40);
let dir: string;
let b: SqliteBackend;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-sign-in-"));
  b = openSqliteBackend(dir);
});
after(async () => {
  await b.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("lets the right token in after ten wrong ones, refuses the eleventh wrong one, and audits each step once", async () => {
  const actor = { via: "token" as const, ip: "192.0.2.7" };
  const attempt = (presented: string) => attemptAdminToken(b, actor, "ip:192.0.2.7", presented, TOKEN);
  for (let i = 0; i < 10; i++) {
    const wrong = await attempt(`wrong-${i}`);
    assert.equal(wrong.ok || wrong.locked, false, `wrong token ${i + 1}: refused, not yet rate limited`);
    assert.ok(!wrong.ok && wrong.retryAtMs > Date.now());
  }
  const locked = await attempt("wrong-10");
  assert.equal(locked.ok, false);
  assert.equal(!locked.ok && locked.locked, true);
  assert.deepEqual(await attempt(TOKEN), { ok: true });
  assert.equal(!(await attempt("wrong-11")).ok, true);
  const audit = await b.audit.listAudit(100);
  assert.equal(audit.filter((e) => e.action === "sign_in_failed").length, 10);
  assert.equal(audit.filter((e) => e.action === "lockout").length, 1);
  assert.ok(audit.every((e) => e.ip === "192.0.2.7" && e.actor === "token"));
});

it("gives a right token's attempt back, so right tokens never add up to a lockout", async () => {
  const bucket = { name: "give-back", limit: 3, windowMs: 3_600_000 };
  for (let i = 0; i < 10; i++)
    assert.deepEqual(await attemptSecret(b, "admin", bucket, "ip:a", TOKEN, TOKEN), { ok: true });
  const wrong = await attemptSecret(b, "admin", bucket, "ip:a", "nope", TOKEN);
  assert.equal(wrong.ok === false && wrong.locked, false, "the first wrong one is a plain failure");
});

it("with a store that cannot count: the right secret still opens, a wrong one fails closed", async () => {
  const down = {
    attempts: {
      take: () => Promise.reject(new StoreUnavailable("store down")),
      refund: () => Promise.reject(new StoreUnavailable("store down")),
    },
  };
  assert.deepEqual(await attemptSecret(down, "admin", SIGN_IN_ATTEMPTS, "ip:b", TOKEN, TOKEN), { ok: true });
  await assert.rejects(attemptSecret(down, "admin", SIGN_IN_ATTEMPTS, "ip:b", "wrong", TOKEN), StoreUnavailable);
  await assert.rejects(attemptSecret(down, "admin", SIGN_IN_ATTEMPTS, "ip:b", undefined, TOKEN), StoreUnavailable);
});

it("slides: the previous hour's attempts weigh by how much of it is still inside the window (SQLite)", async () => {
  const bucket = { name: "slide", limit: 10, windowMs: 3_600_000 };
  const hour = Math.floor(Date.now() / bucket.windowMs) * bucket.windowMs - 2 * bucket.windowMs;
  for (let i = 0; i < 10; i++) assert.equal((await b.attempts.take(bucket, "ip:s", hour + 50 * 60_000)).ok, true);
  assert.equal((await b.attempts.take(bucket, "ip:s", hour + 59 * 60_000)).ok, false, "full at the end of the hour");
  // Half-way through the next hour, half of the previous hour's ten still count: five more fit.
  const next = hour + bucket.windowMs;
  const halfway = await Promise.all(
    Array.from({ length: 8 }, () => b.attempts.take(bucket, "ip:s", next + 30 * 60_000)),
  );
  assert.equal(halfway.filter((t) => t.ok).length, 5);
  // Near the end of it, the previous hour has slid out: only this hour's five count.
  const late = await Promise.all(Array.from({ length: 8 }, () => b.attempts.take(bucket, "ip:s", next + 59 * 60_000)));
  assert.equal(late.filter((t) => t.ok).length, 5);
});
