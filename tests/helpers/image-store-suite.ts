// One behaviour suite for every ImageStore backend, so SQLite and Upstash cannot drift apart.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Due, ImageRecord, ImageStore, Lease } from "@/lib/images/store";

const DAY_MS = 86_400_000;

export function runImageStoreSuite(
  name: string,
  open: () => Promise<ImageStore>,
  opts: { skip?: string | false } = {},
) {
  describe(`ImageStore contract: ${name}`, { skip: opts.skip || false }, () => {
    const run = crypto.randomBytes(4).toString("hex");
    let seq = 0;
    const owner = (label: string) => `key_${run}${label}`;
    // A private stretch of time per suite run: records of other runs sharing a Redis are all older.
    const T0 = Date.now() + 1_000 * DAY_MS;
    let store: ImageStore;

    before(async () => {
      store = await open();
    });
    after(async () => {
      await store?.close();
    });

    const record = (who: string, createdAt: number, extra: Partial<ImageRecord> = {}): ImageRecord => {
      const id = crypto.randomBytes(16).toString("hex");
      seq++;
      return {
        id,
        owner: who,
        kind: "generate",
        url: `http://cdn.invalid/${id}.png`,
        params: { prompt: `p${seq}`, model: "alpha-pro", style: "Anime", ratio: "1:1", seed: seq },
        width: 1024,
        height: 1024,
        bytes: 1000 + seq,
        createdAt,
        expiresAt: createdAt + 30 * DAY_MS,
        deleteTokenHash: crypto.randomBytes(32).toString("hex"),
        ...extra,
      };
    };
    const lease = (now: number, ms = 60_000): Lease => ({
      id: crypto.randomBytes(8).toString("hex"),
      now,
      until: now + ms,
    });
    const live = (now: number): Due => ({ now, cutoff: null });
    const ids = (rs: { id: string }[]) => rs.map((r) => r.id);

    async function listAll(who: string, now: number, limit: number): Promise<{ pages: string[][]; all: string[] }> {
      const pages: string[][] = [];
      let after: string | undefined;
      for (let i = 0; i < 50; i++) {
        const page = await store.list(who, { ...live(now), limit, after });
        pages.push(ids(page.records));
        if (!page.next) break;
        after = page.next;
      }
      return { pages, all: pages.flat() };
    }

    it("lists an owner's records newest first, page by page, with ties broken by id", async () => {
      const a = owner("list-a");
      const made = [0, 1, 2, 2, 2, 3, 4].map((dt) => record(a, T0 + dt * 1000));
      const other = record(owner("list-b"), T0 + 2000);
      for (const r of [...made, other]) await store.insert(r);
      await store.insert(made[0]); // repeated insert changes nothing

      const expected = [...made].sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1)).map((r) => r.id);
      const { pages, all } = await listAll(a, T0 + 5000, 2);
      assert.deepEqual(all, expected);
      assert.deepEqual(
        pages.map((p) => p.length),
        [2, 2, 2, 1],
      );
      const one = await store.list(a, { ...live(T0 + 5000), limit: 100 });
      assert.deepEqual(ids(one.records), expected);
      assert.equal(one.next, null);
      const got = one.records.find((r) => r.id === made[3].id);
      assert.deepEqual(got, made[3], "a record comes back as it was stored");
    });

    it("hides records that are due, by their own expiry or by the retention now", async () => {
      const a = owner("due");
      const expired = record(a, T0, { expiresAt: T0 + 10 });
      const forever = record(a, T0 - 5 * DAY_MS, { expiresAt: null });
      const fresh = record(a, T0 + 20);
      for (const r of [expired, forever, fresh]) await store.insert(r);
      const now = T0 + 100;
      assert.deepEqual(ids((await store.list(a, { now, cutoff: null, limit: 10 })).records), [fresh.id, forever.id]);
      // Retention of one day now: the forever record is older than that.
      assert.deepEqual(ids((await store.list(a, { now, cutoff: now - DAY_MS, limit: 10 })).records), [fresh.id]);
    });

    it("lets only the owner or the token holder claim, once; finishing removes the record", async () => {
      const a = owner("claim");
      const r = record(a, T0 + 50);
      await store.insert(r);
      const now = T0 + 60;
      assert.equal(await store.claim(r.id, { owner: owner("intruder") }, lease(now), live(now)), null);
      assert.equal(
        await store.claim(r.id, { tokenHash: crypto.randomBytes(32).toString("hex") }, lease(now), live(now)),
        null,
      );
      assert.equal(await store.claim("no-such-id", { owner: a }, lease(now), live(now)), null);
      assert.equal(await store.claim(r.id, {}, lease(now), live(now)), null);

      const l = lease(now);
      assert.deepEqual(await store.claim(r.id, { tokenHash: r.deleteTokenHash }, l, live(now)), r);
      // Claimed: nobody else gets it, and it is gone from the listing.
      assert.equal(await store.claim(r.id, { owner: a }, lease(now), live(now)), null);
      assert.deepEqual(ids((await store.list(a, { ...live(now), limit: 10 })).records), []);

      assert.equal(await store.finish(r, "not-our-lease"), false);
      assert.equal(await store.finish(r, l.id), true);
      assert.equal(await store.finish(r, l.id), false, "finishing twice");
      assert.equal(await store.claim(r.id, { owner: a }, lease(now), live(now)), null);
      assert.equal(await store.claim(r.id, "operator", lease(now), live(now)), null);
    });

    it("refuses owners a due record, but not the operator", async () => {
      const a = owner("due-claim");
      const r = record(a, T0 + 70, { expiresAt: T0 + 80 });
      await store.insert(r);
      const now = T0 + 90;
      assert.equal(await store.claim(r.id, { owner: a }, lease(now), live(now)), null);
      assert.equal(await store.claim(r.id, { tokenHash: r.deleteTokenHash }, lease(now), live(now)), null);
      const l = lease(now);
      assert.equal((await store.claim(r.id, "operator", l, live(now)))?.id, r.id);
      assert.equal(await store.finish(r, l.id), true);
    });

    it("a released claim, or one that ran out, can be claimed again; the old lease then cannot finish", async () => {
      const a = owner("release");
      const r = record(a, T0 + 100);
      await store.insert(r);
      const now = T0 + 110;
      const first = lease(now, 1000);
      assert.ok(await store.claim(r.id, { owner: a }, first, live(now)));
      await store.release(r.id, first.id, now + 1);
      // Released records stay out of the listing: their deletion was asked for.
      assert.deepEqual(ids((await store.list(a, { ...live(now + 2), limit: 10 })).records), []);
      const second = lease(now + 2, 1000);
      assert.ok(await store.claim(r.id, { owner: a }, second, live(now + 2)));
      // The second claim runs out: a third claimant takes over, and the second can no longer finish.
      const third = lease(now + 5000, 1000);
      assert.ok(await store.claim(r.id, { owner: a }, third, live(now + 5000)));
      await store.release(r.id, second.id, now + 5001); // not its lease any more: no effect
      assert.equal(await store.claim(r.id, { owner: a }, lease(now + 5002), live(now + 5002)), null);
      assert.equal(await store.finish(r, second.id), false);
      assert.equal(await store.finish(r, third.id), true);
    });

    it("claims due records only, never early, and never the same record twice at once", async () => {
      const a = owner("sweep");
      const base = T0 + 10 * DAY_MS;
      const due = Array.from({ length: 30 }, (_, i) => record(a, base + i, { expiresAt: base + 1000 + i }));
      const old = Array.from({ length: 10 }, (_, i) => record(a, base - 3 * DAY_MS + i, { expiresAt: null }));
      const notYet = Array.from({ length: 5 }, (_, i) => record(a, base + 100 + i, { expiresAt: base + 10_000 }));
      for (const r of [...due, ...old, ...notYet]) await store.insert(r);
      const now = base + 2000;
      const rules: Due = { now, cutoff: now - 2 * DAY_MS };

      // Two sweepers at once, in small batches, until nothing is due.
      const claimedBy: string[][] = [[], []];
      const sweeper = async (n: number) => {
        for (;;) {
          const l = lease(now, 60_000);
          const got = await store.claimDue(l, rules, 7);
          if (got.length === 0) return;
          assert.ok(got.length <= 7);
          claimedBy[n].push(...ids(got));
          for (const r of got) assert.equal(await store.finish(r, l.id), true);
        }
      };
      await Promise.all([sweeper(0), sweeper(1)]);
      const all = claimedBy.flat();
      assert.equal(new Set(all).size, all.length, "no record was claimed twice");
      const wanted = new Set(ids([...due, ...old]));
      const ours = all.filter((id) => wanted.has(id) || notYet.some((r) => r.id === id));
      assert.deepEqual(new Set(ours), wanted, "exactly the due records (by expiry or by age) were claimed");
      assert.deepEqual(ids((await store.list(a, { ...live(now), limit: 100 })).records).sort(), ids(notYet).sort());
    });

    it("finds claims that ran out or were released in a later sweep", async () => {
      const a = owner("rerun");
      const base = T0 + 20 * DAY_MS;
      const r = record(a, base, { expiresAt: base + 1 });
      await store.insert(r);
      const first = lease(base + 10, 1000);
      const got = await store.claimDue(first, { now: base + 10, cutoff: null }, 1000);
      assert.ok(ids(got).includes(r.id));
      for (const other of got) if (other.id !== r.id) await store.release(other.id, first.id, base + 10);
      // Still held: not claimed again.
      assert.ok(!ids(await store.claimDue(lease(base + 20), { now: base + 20, cutoff: null }, 1000)).includes(r.id));
      // Ran out: claimed again, and only the new lease may finish it.
      const second = lease(base + 2000);
      const again = await store.claimDue(second, { now: base + 2000, cutoff: null }, 1000);
      assert.ok(ids(again).includes(r.id));
      assert.equal(await store.finish(r, first.id), false);
      await store.release(r.id, second.id, base + 2001);
      const third = lease(base + 2002);
      assert.ok(ids(await store.claimDue(third, { now: base + 2002, cutoff: null }, 1000)).includes(r.id));
      assert.equal(await store.finish(r, third.id), true);
    });

    it("claims all of one owner's records, due or not, and nobody else's", async () => {
      const a = owner("owned");
      const b = owner("owned-other");
      const mine = Array.from({ length: 12 }, (_, i) => record(a, T0 + i, i % 3 === 0 ? { expiresAt: T0 } : {}));
      const theirs = record(b, T0);
      for (const r of [...mine, theirs]) await store.insert(r);
      const seen: string[] = [];
      for (;;) {
        const l = lease(T0 + 100);
        const got = await store.claimOwned(a, l, 5);
        if (got.length === 0) break;
        for (const r of got) {
          assert.equal(r.owner, a);
          seen.push(r.id);
          assert.equal(await store.finish(r, l.id), true);
        }
      }
      assert.deepEqual(seen.sort(), ids(mine).sort());
      assert.deepEqual(ids((await store.list(b, { ...live(T0 + 100), limit: 10 })).records), [theirs.id]);
    });

    it("counts records", async () => {
      const before = await store.count();
      await store.insert(record(owner("count"), T0));
      assert.equal(await store.count(), before + 1);
    });
  });
}
