// The in-process per-minute window behind the status guard on the embedded store.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryWindow } from "@/lib/quota/memory-window";

const minute = { name: "status-min", limit: 3, windowMs: 60_000 };

describe("memory window", () => {
  it("admits `limit` calls per identity per minute, then refuses until the next window", async () => {
    const w = createMemoryWindow();
    const t0 = 1_800_000_000_000; // a window boundary
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
    assert.equal(takes[4].resetMs, t0 + 60_000);
    assert.equal((await w.take(minute, "ip:b", t0 + 10)).ok, true, "identities are separate");
    assert.equal((await w.take(minute, "ip:a", t0 + 60_000)).ok, true, "a new minute starts afresh");
  });

  it("stays bounded when many identities call once", async () => {
    const w = createMemoryWindow(100);
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 1000; i++) await w.take(minute, `ip:${i}`, t0);
    // Still answers correctly for a fresh identity after pruning.
    assert.equal((await w.take(minute, "ip:new", t0 + 60_000)).ok, true);
  });
});
