// The in-process per-minute window behind the status guard on the embedded store.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryWindow } from "@/lib/quota/memory-window";

const minute = { name: "status-min", limit: 3, windowMs: 60_000 };
const t0 = 1_800_000_000_000; // a window boundary

type IterMethod = "entries" | "keys" | "values";

/** Runs `fn` while counting every Map entry any iteration visits (for...of, keys(), values(), entries(), forEach). */
async function countMapVisits(fn: () => Promise<void>): Promise<number> {
  let visits = 0;
  const proto = Map.prototype as unknown as Record<IterMethod | "forEach" | typeof Symbol.iterator, unknown>;
  const saved = {
    entries: Map.prototype.entries,
    keys: Map.prototype.keys,
    values: Map.prototype.values,
    forEach: Map.prototype.forEach,
    iterator: Map.prototype[Symbol.iterator],
  };
  const counted = (original: (this: Map<unknown, unknown>) => Iterator<unknown>) =>
    function (this: Map<unknown, unknown>) {
      const it = original.call(this);
      return {
        next() {
          const step = it.next();
          if (!step.done) visits++;
          return step;
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    };
  for (const name of ["entries", "keys", "values"] as const) proto[name] = counted(saved[name]);
  proto[Symbol.iterator] = counted(saved.iterator);
  proto.forEach = function (this: Map<unknown, unknown>, cb: (v: unknown, k: unknown, m: unknown) => void) {
    saved.forEach.call(this, (v, k, m) => {
      visits++;
      cb(v, k, m);
    });
  };
  try {
    await fn();
  } finally {
    Object.assign(proto, { entries: saved.entries, keys: saved.keys, values: saved.values, forEach: saved.forEach });
    proto[Symbol.iterator] = saved.iterator;
  }
  return visits;
}

describe("memory window", () => {
  it("admits `limit` calls per identity per minute, then refuses until the next window", async () => {
    const w = createMemoryWindow();
    const takes = [];
    for (let i = 0; i < 5; i++) takes.push(await w.take(minute, "ip:a", t0 + i));
    assert.deepEqual(
      takes.map((t) => t.ok),
      [true, true, true, false, false],
    );
    assert.deepEqual(
      takes.map((t) => t.remaining),
      [2, 1, 0, 0, 0],
    );
    assert.deepEqual(
      takes.map((t) => t.used),
      [1, 2, 3, 3, 3],
    );
    assert.equal(takes[4].resetMs, t0 + 60_000);
    assert.equal(takes[4].windowStart, t0);
    assert.equal((await w.take(minute, "ip:b", t0 + 10)).ok, true, "identities are separate");
    assert.equal((await w.take(minute, "ip:a", t0 + 60_000)).ok, true, "a new minute starts afresh");
  });

  it("keeps buckets apart", async () => {
    const w = createMemoryWindow();
    const other = { name: "jobs-min", limit: 1, windowMs: 60_000 };
    for (let i = 0; i < 3; i++) await w.take(minute, "ip:a", t0);
    assert.equal((await w.take(minute, "ip:a", t0)).ok, false);
    assert.equal((await w.take(other, "ip:a", t0)).ok, true);
    assert.equal((await w.take(other, "ip:a", t0)).ok, false);
  });

  it("counts a clock that steps back against the current window", async () => {
    const w = createMemoryWindow();
    for (let i = 0; i < 3; i++) await w.take(minute, "ip:a", t0 + 60_000);
    const back = await w.take(minute, "ip:a", t0 + 59_000);
    assert.equal(back.ok, false);
    assert.equal(back.windowStart, t0 + 60_000);
  });

  it("stays bounded when many identities call once", async () => {
    const w = createMemoryWindow(100);
    for (let i = 0; i < 1000; i++) await w.take(minute, `ip:${i}`, t0);
    assert.equal(w.size(), 100);
    // Still answers correctly for a fresh identity after pruning.
    assert.equal((await w.take(minute, "ip:new", t0 + 60_000)).ok, true);
  });

  it("drops a finished window whole, without visiting its entries", async () => {
    const w = createMemoryWindow();
    for (let i = 0; i < 5000; i++) await w.take(minute, `ip:${i}`, t0);
    assert.equal(w.size(), 5000);
    const visits = await countMapVisits(async () => {
      assert.equal((await w.take(minute, "ip:late", t0 + 60_000)).ok, true);
    });
    assert.equal(visits, 0, "no entry of the old window is visited");
    assert.equal(w.size(), 1, "the old window's entries are gone");
  });

  it("evicts from a full window in O(1) per new identity", async () => {
    const maxKeys = 200;
    const w = createMemoryWindow(maxKeys);
    for (let i = 0; i < maxKeys; i++) await w.take(minute, `ip:${i}`, t0);
    const extra = 2000;
    const visits = await countMapVisits(async () => {
      for (let i = 0; i < extra; i++) await w.take(minute, `ip:new-${i}`, t0 + 1);
    });
    // A scan for expired entries on each insert would visit maxKeys entries per take (400,000 here).
    assert.ok(visits <= extra, `visited ${visits} entries for ${extra} takes`);
    assert.equal(w.size(), maxKeys);
    // The newest identities are kept with their counts; the oldest were forgotten.
    assert.equal((await w.take(minute, `ip:new-${extra - 1}`, t0 + 2)).used, 2);
    assert.equal((await w.take(minute, "ip:0", t0 + 2)).used, 1);
  });
});
