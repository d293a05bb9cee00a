// What SIGTERM waits for (server.ts): work counted in flight until it settles, and a wait bounded by the grace.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { trackWork, whenIdle, workInFlight } from "@/lib/ops/drain";

const later = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error("failed")) : resolve(value)), ms));

describe("in-flight work", () => {
  it("is idle at once when nothing runs", async () => {
    assert.equal(workInFlight(), 0);
    assert.equal(await whenIdle(0), true);
  });

  it("waits for every tracked piece, failed ones included, and hands each result through", async () => {
    const a = trackWork(later(30, "a"));
    const b = trackWork(later(60, "b", true));
    assert.equal(workInFlight(), 2);
    const started = Date.now();
    assert.equal(await whenIdle(5_000), true);
    assert.ok(Date.now() - started >= 55, "idle only after the slower one");
    assert.equal(workInFlight(), 0);
    assert.equal(await a, "a");
    await assert.rejects(b, /failed/);
  });

  it("gives up after the grace, and says so", async () => {
    const slow = trackWork(later(300, "slow"));
    assert.equal(await whenIdle(50), false);
    assert.equal(workInFlight(), 1);
    await slow;
    assert.equal(workInFlight(), 0);
  });
});
