// One contract suite for every store backend (quota counters, keys, signups), so SQLite and Upstash can't drift apart in behaviour.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { KeyRecord } from "@/lib/auth/types";
import { Quota } from "@/lib/quota/ledger";
import { type Bucket, windowStartOf } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import type { Backend } from "@/lib/store/backend";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export type StoreSuiteOptions = {
  /** A reason to skip the whole suite (shown in the test output), or false. */
  skip?: string | false;
};

export function runStoreSuite(name: string, open: () => Promise<Backend>, opts: StoreSuiteOptions = {}): void {
  describe(`Store contract: ${name}`, { skip: opts.skip || false }, () => {
    // Unique names per run, so the suite can share a Redis with other runs and leftovers.
    const run = crypto.randomBytes(4).toString("hex");
    const bucket = (suffix: string, limit: number, windowMs = DAY_MS): Bucket => ({
      name: `t${run}-${suffix}`,
      limit,
      windowMs,
    });
    const ident = (suffix: string) => `id-${run}-${suffix}`;
    let store: Backend;

    before(async () => {
      store = await open();
    });
    after(async () => {
      await store?.close();
    });

    it("takes until the limit, then refuses", async () => {
      const b = bucket("seq", 3);
      const before = windowStartOf(b, Date.now());
      for (let i = 1; i <= 3; i++) {
        const t = await store.quota.take(b, ident("a"));
        assert.equal(t.ok, true);
        assert.equal(t.limit, 3);
        assert.equal(t.used, i);
        assert.equal(t.remaining, 3 - i);
        assert.equal(t.resetMs, t.windowStart + DAY_MS);
        // Epoch-aligned: a daily window starts at 00:00 UTC.
        assert.ok(t.windowStart === before || t.windowStart === windowStartOf(b, Date.now()));
        assert.equal(t.windowStart % DAY_MS, 0);
      }
      for (let i = 0; i < 2; i++) {
        const t = await store.quota.take(b, ident("a"));
        assert.equal(t.ok, false);
        assert.equal(t.used, 3);
        assert.equal(t.remaining, 0);
      }
    });

    it("takes several units at once, or none", async () => {
      const b = bucket("several", 5);
      const id = ident("several");
      const four = await store.quota.take(b, id, undefined, 4);
      assert.deepEqual([four.ok, four.used, four.remaining], [true, 4, 1]);
      const two = await store.quota.take(b, id, undefined, 2);
      assert.deepEqual([two.ok, two.used, two.remaining], [false, 4, 1], "refused whole: nothing taken");
      assert.equal((await store.quota.peek(b, id)).used, 4);
      assert.equal((await store.quota.take(b, id, undefined, 1)).ok, true);
      const more = await store.quota.take(bucket("several-over", 3), id, undefined, 4);
      assert.deepEqual([more.ok, more.used], [false, 0], "more than the limit is never granted, even to a new window");
      assert.equal((await store.quota.peek(bucket("several-over", 3), id)).used, 0);
    });

    it("parallel takes of 4 and 1 near the limit never over-grant, and refuse only what did not fit", async () => {
      for (let round = 0; round < 8; round++) {
        const b = bucket(`race-${round}`, 6);
        const id = ident(`race-${round}`);
        await store.quota.take(b, id, undefined, 2);
        // 4 left: the 4s and the 1s race for them.
        const asks = [4, 1, 4, 1, 4];
        const takes = await Promise.all(asks.map((n) => store.quota.take(b, id, undefined, n)));
        const granted = asks.reduce((sum, n, i) => sum + (takes[i].ok ? n : 0), 0);
        const left = (await store.quota.peek(b, id)).remaining;
        assert.equal(granted + left, 4, `round ${round}: granted ${granted}, ${left} left`);
        asks.forEach((n, i) => {
          if (!takes[i].ok) assert.ok(n > left, `round ${round}: a take of ${n} was refused with ${left} left`);
        });
      }
    });

    it("the request ledger takes n units atomically: parallel requests of 4 and 1 get all they fit", async () => {
      for (let round = 0; round < 8; round++) {
        const b = bucket(`ledger-${round}`, 8);
        const id = ident(`ledger-${round}`);
        await store.quota.take(b, id, undefined, 4);
        const refusal = () => new ApiError("rate_limited", "used up");
        const asks = [4, 4, 1, 4, 1];
        const quotas = asks.map(() => new Quota(store.quota, [{ bucket: b, identity: id, refusal }], () => false));
        const outcomes = await Promise.all(
          quotas.map((q, i) =>
            q.take(asks[i]).then(
              () => true,
              () => false,
            ),
          ),
        );
        const granted = asks.reduce((sum, n, i) => sum + (outcomes[i] ? n : 0), 0);
        const left = (await store.quota.peek(b, id)).remaining;
        assert.equal(granted + left, 4, `round ${round}: granted ${granted}, ${left} left, never more than there was`);
        asks.forEach((n, i) => {
          if (!outcomes[i]) assert.ok(n > left, `round ${round}: a request for ${n} was refused with ${left} left`);
        });
        // Each unit is held on its own, so a failed image gives back exactly one.
        const winner = quotas.find((_, i) => outcomes[i] && asks[i] === 4);
        if (winner) {
          assert.equal(winner.heldUnits().length, 4);
          await winner.giveBack(1);
          assert.equal((await store.quota.peek(b, id)).remaining, left + 1);
        }
      }
    });

    it("gives exactly the limit under 20 parallel takes", async () => {
      const b = bucket("burst", 5);
      const takes = await Promise.all(Array.from({ length: 20 }, () => store.quota.take(b, ident("burst"))));
      assert.equal(takes.filter((t) => t.ok).length, 5);
      const u = await store.quota.peek(b, ident("burst"));
      assert.equal(u.used, 5);
      assert.equal(u.remaining, 0);
    });

    it("refund gives a unit back, and never goes below zero", async () => {
      const b = bucket("refund", 2);
      const id = ident("refund");
      const first = await store.quota.take(b, id);
      assert.equal((await store.quota.take(b, id)).ok, true);
      assert.equal((await store.quota.take(b, id)).ok, false);

      await store.quota.refund(b, id, first.windowStart);
      assert.deepEqual(await store.quota.peek(b, id), { limit: 2, used: 1, remaining: 1, resetMs: first.resetMs });
      assert.equal((await store.quota.take(b, id)).ok, true);
      assert.equal((await store.quota.take(b, id)).ok, false);

      for (let i = 0; i < 4; i++) await store.quota.refund(b, id, first.windowStart);
      assert.equal((await store.quota.peek(b, id)).used, 0);
      // Had the counter gone negative, a third take would pass.
      assert.equal((await store.quota.take(b, id)).ok, true);
      assert.equal((await store.quota.take(b, id)).ok, true);
      assert.equal((await store.quota.take(b, id)).ok, false);
    });

    it("a refund for an earlier window leaves the current one alone", async () => {
      const b = bucket("old-refund", 3);
      const t = await store.quota.take(b, ident("old"));
      await store.quota.refund(b, ident("old"), t.windowStart - DAY_MS);
      assert.equal((await store.quota.peek(b, ident("old"))).used, 1);
    });

    it("peek reads without taking", async () => {
      const b = bucket("peek", 4);
      for (let i = 0; i < 3; i++) {
        const u = await store.quota.peek(b, ident("peek"));
        assert.equal(u.used, 0);
        assert.equal(u.remaining, 4);
        assert.equal(u.limit, 4);
        assert.equal(u.resetMs % DAY_MS, 0);
      }
      const t = await store.quota.take(b, ident("peek"));
      assert.deepEqual(await store.quota.peek(b, ident("peek")), {
        limit: 4,
        used: 1,
        remaining: 3,
        resetMs: t.resetMs,
      });
    });

    it("keeps separate windows per identity and per bucket name", async () => {
      const one = bucket("sep-1", 1);
      const two = bucket("sep-2", 1);
      assert.equal((await store.quota.take(one, ident("x"))).ok, true);
      assert.equal((await store.quota.take(one, ident("x"))).ok, false);
      assert.equal((await store.quota.take(one, ident("y"))).ok, true);
      assert.equal((await store.quota.take(two, ident("x"))).ok, true);
      assert.equal((await store.quota.peek(two, ident("y"))).used, 0);
    });

    it("minute windows are epoch-aligned too", async () => {
      const b = bucket("minute", 2, MINUTE_MS);
      const t = await store.quota.take(b, ident("m"));
      assert.equal(t.ok, true);
      assert.equal(t.windowStart % MINUTE_MS, 0);
      assert.equal(t.resetMs, t.windowStart + MINUTE_MS);
      assert.ok(t.resetMs > Date.now() - 1000);
    });

    const key = (n: string, createdAt: string, label = `label ${n}`): KeyRecord => ({
      id: `key-${run}-${n}`,
      label,
      hash: crypto.randomBytes(32).toString("hex"),
      last4: n.padStart(4, "0").slice(-4),
      plan: "pro",
      createdAt,
      revokedAt: null,
    });

    it("stores, finds, lists and revokes keys", async () => {
      // Labels that a JSON-guessing client would mangle.
      const k1 = key("1", "2031-01-02T00:00:00.000Z", "123");
      const k2 = key("2", "2031-01-01T00:00:00.000Z", 'Ünïcode ✓ {"json": true}');
      const k3 = key("3", "2031-01-03T00:00:00.000Z");
      for (const k of [k1, k2, k3]) await store.keys.insertKey(k);

      assert.deepEqual(await store.keys.findKeyByHash(k1.hash), k1);
      assert.deepEqual(await store.keys.findKeyByHash(k2.hash), k2);
      assert.equal(await store.keys.findKeyByHash(crypto.randomBytes(32).toString("hex")), null);

      const mine = (await store.keys.listKeys()).filter((k) => k.id.startsWith(`key-${run}-`));
      assert.deepEqual(mine, [k2, k1, k3]);

      assert.equal(await store.keys.revokeKey(`key-${run}-missing`, "2031-02-01T00:00:00.000Z"), false);
      assert.equal(await store.keys.revokeKey(k1.id, "2031-02-01T00:00:00.000Z"), true);
      assert.equal(await store.keys.revokeKey(k1.id, "2031-03-01T00:00:00.000Z"), true);
      assert.equal((await store.keys.findKeyByHash(k1.hash))?.revokedAt, "2031-02-01T00:00:00.000Z");
      const listed = (await store.keys.listKeys()).find((k) => k.id === k1.id);
      assert.equal(listed?.revokedAt, "2031-02-01T00:00:00.000Z");
      assert.equal((await store.keys.findKeyByHash(k3.hash))?.revokedAt, null);
    });

    it("adds to the waitlist once and lists by signup time", async () => {
      const email = (n: string) => `wl-${run}-${n}@example.com`;
      assert.equal(
        await store.waitlist.addToWaitlist({
          email: email("b"),
          useCase: "posters",
          createdAt: "2031-01-02T00:00:00.000Z",
        }),
        true,
      );
      assert.equal(
        await store.waitlist.addToWaitlist({
          email: email("b"),
          useCase: "other",
          createdAt: "2031-01-05T00:00:00.000Z",
        }),
        false,
      );
      assert.equal(
        await store.waitlist.addToWaitlist({ email: email("a"), useCase: null, createdAt: "2031-01-01T00:00:00.000Z" }),
        true,
      );
      const mine = (await store.waitlist.listWaitlist())
        .filter((e) => e.email.includes(`-${run}-`))
        .map(({ email, useCase, createdAt }) => ({ email, useCase, createdAt }));
      assert.deepEqual(mine, [
        { email: email("a"), useCase: null, createdAt: "2031-01-01T00:00:00.000Z" },
        { email: email("b"), useCase: "posters", createdAt: "2031-01-02T00:00:00.000Z" },
      ]);
    });

    it("answers ping", async () => {
      assert.equal(await store.ping(), true);
    });
  });
}
