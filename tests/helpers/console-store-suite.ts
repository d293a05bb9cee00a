// One behaviour suite for the console's data and the usage history on every backend, so SQLite and Upstash can't
// drift apart: waitlist ids and decisions, the keys' 1.1 fields, the audit log, and exact usage counts.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { KeyRecord } from "@/lib/auth/types";
import type { Backend } from "@/lib/store/backend";
import type { UsageEvent } from "@/lib/usage/history";

export function runConsoleStoreSuite(
  name: string,
  open: () => Promise<Backend>,
  opts: { skip?: string | false } = {},
): void {
  describe(`Console store: ${name}`, { skip: opts.skip || false }, () => {
    // Unique names per run, so the suite can share a Redis with other runs.
    const run = crypto.randomBytes(4).toString("hex");
    const email = (n: string) => `c-${run}-${n}@example.com`;
    let b: Backend;
    before(async () => {
      b = await open();
    });
    after(async () => {
      await b?.close();
    });

    const mine = async () => (await b.waitlist.listWaitlist()).filter((e) => e.email.includes(`-${run}-`));
    const key = (n: string, extra: Partial<KeyRecord> = {}): KeyRecord => ({
      id: `key-${run}-${n}`,
      label: `label ${n}`,
      hash: crypto.randomBytes(32).toString("hex"),
      last4: n.padStart(4, "0").slice(-4),
      plan: "pro",
      createdAt: "2031-01-01T00:00:00.000Z",
      revokedAt: null,
      ...extra,
    });

    it("gives every signup a stable id and the pending status", async () => {
      await b.waitlist.addToWaitlist({ email: email("a"), useCase: "posters", createdAt: "2031-01-02T00:00:00.000Z" });
      await b.waitlist.addToWaitlist({ email: email("b"), useCase: null, createdAt: "2031-01-01T00:00:00.000Z" });
      const first = await mine();
      assert.deepEqual(
        first.map((e) => [e.email, e.useCase, e.createdAt, e.status, e.keyId, e.decidedAt]),
        [
          [email("b"), null, "2031-01-01T00:00:00.000Z", "pending", null, null],
          [email("a"), "posters", "2031-01-02T00:00:00.000Z", "pending", null, null],
        ],
      );
      assert.match(first[0].id, /^wl_[0-9a-f]{16}$/);
      assert.notEqual(first[0].id, first[1].id);
      assert.deepEqual(await mine(), first, "ids do not change between reads");
      assert.deepEqual(await b.waitlist.findWaitlistEntry(first[1].id), first[1]);
      assert.equal(await b.waitlist.findWaitlistEntry("wl_0000000000000000"), null);
    });

    it("moves an entry once: of parallel approvals exactly one wins, a second is a conflict", async () => {
      await b.waitlist.addToWaitlist({ email: email("c"), useCase: null, createdAt: "2031-01-03T00:00:00.000Z" });
      const entry = (await mine()).find((e) => e.email === email("c"));
      assert.ok(entry);
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          b.waitlist.decideWaitlistEntry(entry.id, {
            from: ["pending", "declined"],
            to: "invited",
            keyId: `key-${run}-claim-${i}`,
            at: "2031-02-01T00:00:00.000Z",
          }),
        ),
      );
      assert.equal(outcomes.filter((o) => o === "ok").length, 1);
      assert.equal(outcomes.filter((o) => o === "conflict").length, 11);
      const winner = `key-${run}-claim-${outcomes.indexOf("ok")}`;
      const after = await b.waitlist.findWaitlistEntry(entry.id);
      assert.equal(after?.status, "invited");
      assert.equal(after?.keyId, winner);
      assert.equal(after?.decidedAt, "2031-02-01T00:00:00.000Z");
      const decide = (to: "pending" | "declined", ifKeyId?: string) =>
        b.waitlist.decideWaitlistEntry(entry.id, { from: ["invited"], to, keyId: null, at: null, ifKeyId });
      assert.equal(
        await decide("pending", `key-${run}-someone-else`),
        "conflict",
        "only the claim's own key undoes it",
      );
      assert.equal(await decide("pending", winner), "ok");
      assert.equal((await b.waitlist.findWaitlistEntry(entry.id))?.status, "pending");
      assert.equal(
        await b.waitlist.decideWaitlistEntry("wl_ffffffffffffffff", {
          from: ["pending"],
          to: "declined",
          keyId: null,
          at: null,
        }),
        "missing",
      );
    });

    it("approves an entry and stores its key in one step: of parallel approvals exactly one key is stored", async () => {
      await b.waitlist.addToWaitlist({ email: email("r"), useCase: null, createdAt: "2031-01-04T00:00:00.000Z" });
      const entry = (await mine()).find((e) => e.email === email("r"));
      assert.ok(entry);
      const candidates = Array.from({ length: 10 }, (_, i) =>
        key(`race-${i}`, { email: email("r"), createdAt: "2031-02-02T00:00:00.000Z" }),
      );
      const outcomes = await Promise.all(candidates.map((k) => b.waitlist.approveWaitlistEntry(entry.id, k)));
      assert.equal(outcomes.filter((o) => o === "ok").length, 1);
      assert.equal(outcomes.filter((o) => o === "conflict").length, 9);
      const winner = candidates[outcomes.indexOf("ok")];
      const stored = (await b.keys.listKeys()).filter((k) => k.id.startsWith(`key-${run}-race-`));
      assert.deepEqual(stored, [winner], "only the winner's key exists");
      const after = await b.waitlist.findWaitlistEntry(entry.id);
      assert.equal(after?.status, "invited");
      assert.equal(after?.keyId, winner.id);
      assert.equal(after?.decidedAt, winner.createdAt);
      assert.equal(await b.waitlist.approveWaitlistEntry("wl_ffffffffffffffff", key("nobody")), "missing");
      assert.equal(await b.keys.findKey(`key-${run}-nobody`), null);
    });

    it("leaves the entry as it was when its key cannot be stored", async () => {
      await b.waitlist.addToWaitlist({ email: email("f"), useCase: null, createdAt: "2031-01-05T00:00:00.000Z" });
      const entry = (await mine()).find((e) => e.email === email("f"));
      assert.ok(entry);
      // The key insert fails on purpose: a key with the same id, then one with the same hash, is already stored.
      const taken = key("taken");
      await b.keys.insertKey(taken);
      await assert.rejects(b.waitlist.approveWaitlistEntry(entry.id, key("taken")));
      await assert.rejects(b.waitlist.approveWaitlistEntry(entry.id, key("fresh", { hash: taken.hash })));
      const unchanged = await b.waitlist.findWaitlistEntry(entry.id);
      assert.deepEqual(unchanged, entry, "still pending, with no key and no decision time");
      assert.equal(await b.keys.findKey(`key-${run}-fresh`), null);
      assert.deepEqual(await b.keys.findKey(taken.id), taken, "the key already there is untouched");
      // And the entry can still be approved with a good key.
      assert.equal(await b.waitlist.approveWaitlistEntry(entry.id, key("good")), "ok");
      assert.equal((await b.waitlist.findWaitlistEntry(entry.id))?.keyId, `key-${run}-good`);
    });

    it("keeps the keys' email, daily limit and webhook secret", async () => {
      const k = key("1", { email: email("k"), dailyLimit: 7, webhookSecret: "whsec_abc" });
      await b.keys.insertKey(k);
      assert.deepEqual(await b.keys.findKeyByHash(k.hash), k);
      assert.deepEqual(await b.keys.findKey(k.id), k);
      assert.equal(await b.keys.findKey(`key-${run}-missing`), null);

      assert.equal(await b.keys.setKeyDailyLimit(k.id, 0), true);
      assert.equal((await b.keys.findKeyByHash(k.hash))?.dailyLimit, 0);
      assert.equal(await b.keys.setKeyDailyLimit(k.id, null), true);
      assert.equal((await b.keys.findKeyByHash(k.hash))?.dailyLimit, undefined);
      assert.equal(await b.keys.setKeyDailyLimit(`key-${run}-missing`, 3), false);

      assert.equal(await b.keys.ensureWebhookSecret(k.id, "whsec_other"), "whsec_abc", "an existing secret stays");
      const old = key("2");
      await b.keys.insertKey(old);
      assert.equal((await b.keys.findKeyByHash(old.hash))?.webhookSecret, undefined);
      assert.equal(await b.keys.ensureWebhookSecret(old.id, "whsec_new"), "whsec_new");
      assert.equal(await b.keys.ensureWebhookSecret(old.id, "whsec_newer"), "whsec_new");
      assert.equal(await b.keys.ensureWebhookSecret(`key-${run}-missing`, "whsec_x"), null);
    });

    it("lists the audit log newest first", async () => {
      for (const [i, action] of (["sign_in", "approve", "limit_change"] as const).entries()) {
        await b.audit.appendAudit({
          at: `2031-03-0${i + 1}T00:00:00.000Z`,
          action,
          target: `t-${run}-${i}`,
          ip: "127.0.0.0/24",
          actor: "session",
          detail: i === 2 ? "5 (was default)" : null,
        });
      }
      const entries = (await b.audit.listAudit(50)).filter((e) => e.target.startsWith(`t-${run}-`));
      assert.deepEqual(
        entries.map((e) => [e.action, e.target, e.ip, e.actor, e.detail]),
        [
          ["limit_change", `t-${run}-2`, "127.0.0.0/24", "session", "5 (was default)"],
          ["approve", `t-${run}-1`, "127.0.0.0/24", "session", null],
          ["sign_in", `t-${run}-0`, "127.0.0.0/24", "session", null],
        ],
      );
      assert.equal(new Set(entries.map((e) => e.id)).size, 3);
      assert.equal((await b.audit.listAudit(1)).length, 1);
    });

    it("counts usage exactly under 60 parallel records, per day, plan, key and outcome", async () => {
      const model = `m-${run}`;
      const day1 = Date.UTC(2031, 0, 10, 12);
      const day2 = Date.UTC(2031, 0, 11, 1);
      const keyA = `key-${run}-a`;
      await b.keys.insertKey(key("a"));
      const event = (over: Partial<UsageEvent>): UsageEvent => ({
        at: day1,
        plan: "free",
        keyId: null,
        endpoint: "generate",
        model,
        engine: "preview",
        outcome: "succeeded",
        ...over,
      });
      const events = [
        ...Array.from({ length: 30 }, () => event({})),
        ...Array.from({ length: 20 }, () => event({ plan: "pro", keyId: keyA })),
        ...Array.from({ length: 5 }, () => event({ plan: "pro", keyId: keyA, outcome: "failed", engine: "" })),
        ...Array.from({ length: 4 }, () => event({ endpoint: "enhance", outcome: "refused", at: day2 })),
        event({ plan: "pro", keyId: keyA, at: day2 + 1000 }),
      ];
      await Promise.all(events.map((e) => b.usage.record(e)));

      const rows = (await b.usage.read("2031-01-10", "2031-01-11")).filter((r) => r.model === model);
      const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).reduce((n, r) => n + r.count, 0);
      assert.equal(
        count(() => true),
        60,
      );
      assert.equal(
        count((r) => r.date === "2031-01-10" && r.plan === "free" && r.outcome === "succeeded"),
        30,
      );
      assert.equal(
        count((r) => r.date === "2031-01-10" && r.plan === "pro" && r.outcome === "succeeded"),
        20,
      );
      assert.equal(
        count((r) => r.plan === "pro" && r.outcome === "failed" && r.engine === ""),
        5,
      );
      assert.equal(
        count((r) => r.date === "2031-01-11" && r.endpoint === "enhance" && r.outcome === "refused"),
        4,
      );
      assert.equal((await b.usage.read("2031-01-11", "2031-01-11")).filter((r) => r.model === model).length, 2);

      const keyRows = await b.usage.readKey(keyA, "2031-01-10", "2031-01-11");
      assert.ok(keyRows.every((r) => r.plan === "pro"));
      assert.equal(
        keyRows.reduce((n, r) => n + r.count, 0),
        26,
        "a key's history holds only its own requests",
      );
      const totals = (await b.usage.keyTotals("2031-01-10", "2031-01-11")).filter((t) => t.keyId === keyA);
      assert.deepEqual(
        totals.sort((x, y) => x.date.localeCompare(y.date)),
        [
          { keyId: keyA, date: "2031-01-10", succeeded: 20 },
          { keyId: keyA, date: "2031-01-11", succeeded: 1 },
        ],
      );
      assert.equal((await b.usage.lastUsed()).get(keyA), new Date(day2 + 1000).toISOString());
    });

    it("keeps console sessions by id until deleted, one or all; opening one drops the expired", async () => {
      const now = Date.now();
      const session = (n: string, expiresAt: number) => ({
        id: `s-${run}-${n}`,
        tokenDigest: "d".repeat(64),
        createdAt: now,
        expiresAt,
        ip: n === "a" ? "2001:db8::1" : null,
      });
      await b.sessions.putSession(session("old", now - 1));
      await b.sessions.putSession(session("a", now + 60_000));
      await b.sessions.putSession(session("b", now + 60_000));
      assert.deepEqual(await b.sessions.getSession(`s-${run}-a`), session("a", now + 60_000));
      assert.equal(await b.sessions.getSession(`s-${run}-old`), null, "dropped when b was opened");
      assert.equal(await b.sessions.deleteSession(`s-${run}-a`), true);
      assert.equal(await b.sessions.deleteSession(`s-${run}-a`), false);
      assert.equal(await b.sessions.getSession(`s-${run}-a`), null);
      assert.ok((await b.sessions.deleteAllSessions()) >= 1);
      assert.equal(await b.sessions.getSession(`s-${run}-b`), null);
    });

    it("counts attempts in a sliding window atomically, and gives one back", async () => {
      const bucket = { name: `attempts-${run}`, limit: 10, windowMs: 60 * 60 * 1000 };
      const takes = await Promise.all(Array.from({ length: 16 }, () => b.attempts.take(bucket, "ip:a")));
      assert.equal(takes.filter((t) => t.ok).length, 10);
      assert.ok(takes.every((t) => t.resetMs > Date.now()));
      const refused = await b.attempts.take(bucket, "ip:a");
      assert.equal(refused.ok, false);
      await b.attempts.refund(bucket, "ip:a", takes.find((t) => t.ok)!);
      assert.equal((await b.attempts.take(bucket, "ip:a")).ok, true, "the unit given back is there again");
      assert.equal((await b.attempts.take(bucket, "ip:a")).ok, false);
      assert.equal((await b.attempts.take(bucket, "ip:b")).ok, true, "another identity is not affected");
    });

    it("pages, filters and searches the waitlist in the store", async () => {
      const tag = `q${run}`;
      for (let i = 0; i < 5; i++) {
        await b.waitlist.addToWaitlist({
          email: `${tag}-${i}@example.com`,
          useCase: i === 2 ? "Shop 50%_OFF banners" : null,
          createdAt: `2031-02-0${i + 1}T00:00:00.000Z`,
        });
      }
      const page = await b.waitlist.queryWaitlist({ search: tag, offset: 1, limit: 2 });
      assert.deepEqual(
        page.entries.map((e) => e.email),
        [`${tag}-1@example.com`, `${tag}-2@example.com`],
      );
      assert.equal(page.total, 5);
      assert.ok(page.counts.pending >= 5);
      assert.match(page.entries[0].id, /^wl_/);
      const { id } = page.entries[0];
      await b.waitlist.decideWaitlistEntry(id, { from: ["pending"], to: "declined", keyId: null, at: null });
      const declined = await b.waitlist.queryWaitlist({ search: tag, status: "declined", offset: 0, limit: 10 });
      assert.deepEqual(
        declined.entries.map((e) => e.id),
        [id],
      );
      const useCase = await b.waitlist.queryWaitlist({ search: "50%_off", offset: 0, limit: 10 });
      assert.ok(useCase.entries.some((e) => e.email === `${tag}-2@example.com`));
      assert.equal((await b.waitlist.queryWaitlist({ search: `${tag}%`, offset: 0, limit: 10 })).total, 0);
      assert.equal((await b.waitlist.queryWaitlist({ search: `${tag}-_`, offset: 0, limit: 10 })).total, 0);
    });
  });
}
