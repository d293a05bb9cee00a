// The bounded work queue: concurrency cap, busy when full, and abandoned jobs dropped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QueueFull } from "@/lib/errors";
import { WorkQueue } from "@/lib/work/queue";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("WorkQueue", () => {
  it("runs at most `concurrency` jobs and queues the rest in order", async () => {
    const q = new WorkQueue("t", 2, 10);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      q.run(async () => {
        started.push(i);
        return g.promise;
      }),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    assert.deepEqual(q.stats, { running: 2, queued: 1 });
    gates[0].resolve();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2]);
    gates[1].resolve();
    gates[2].resolve();
    await Promise.all(runs);
    assert.deepEqual(q.stats, { running: 0, queued: 0 });
  });

  it("answers busy when the queue is full", async () => {
    const q = new WorkQueue("t", 1, 1);
    const gate = deferred();
    const a = q.run(() => gate.promise);
    const b = q.run(async () => {});
    await assert.rejects(
      q.run(async () => {}),
      (e: unknown) => e instanceof QueueFull && e.retryAfterS > 0,
    );
    gate.resolve();
    await Promise.all([a, b]);
  });

  it("drops a queued job whose client went away", async () => {
    const q = new WorkQueue("t", 1, 5);
    const gate = deferred();
    const first = q.run(() => gate.promise);
    const ctl = new AbortController();
    let ran = false;
    const dropped = q.run(async () => {
      ran = true;
    }, ctl.signal);
    ctl.abort();
    await assert.rejects(dropped);
    assert.equal(q.stats.queued, 0);
    gate.resolve();
    await first;
    assert.equal(ran, false);
    assert.deepEqual(q.stats, { running: 0, queued: 0 });
  });
});
