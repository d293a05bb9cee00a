// The inference worker pool with real worker threads: crashes are reported and replaced, failed restarts retried
// with backoff, aborted queued jobs never run, and jobs of different groups take turns.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { WorkerCrashError, WorkerPool, WorkerStartError } from "@/lib/enhance/neural/pool";
import { QueueFull } from "@/lib/errors";

const CRASHER = path.resolve(__dirname, "../fixtures/crash-worker.cjs");
const BROKEN = path.resolve(__dirname, "../fixtures/broken-worker.cjs");
const FLAKY = path.resolve(__dirname, "../fixtures/flaky-worker.cjs");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pool on the flaky fixture whose starts number `failOn` fail; `startTimes()` reads when each start began. */
function createFlakyPool(failOn: number[], backoff = { initial: 100, max: 400 }) {
  const starts = new SharedArrayBuffer(8 + 8 * 32);
  const pool = new WorkerPool({ script: FLAKY, size: 1, workerData: { starts, failOn }, restartBackoffMs: backoff });
  const startTimes = () => Array.from(new Float64Array(starts, 8, Atomics.load(new Int32Array(starts, 0, 1), 0)));
  return { pool, startTimes };
}

/** Retries a run that is refused with QueueFull (as a client told to come back would), up to `ms`. */
async function runWhenBack<T>(pool: WorkerPool, task: unknown, ms = 20_000): Promise<{ result: T; refusals: number }> {
  let refusals = 0;
  for (const end = Date.now() + ms; ; ) {
    try {
      return { result: await pool.run<T>(task), refusals };
    } catch (err) {
      if (!(err instanceof QueueFull) || Date.now() > end) throw err;
      refusals++;
      await sleep(25);
    }
  }
}

describe("worker pool", () => {
  for (const crash of ["exit", "throw"] as const) {
    it(`rejects the job of a worker that dies (${crash}) and serves the next job on a new worker`, async () => {
      const pool = new WorkerPool({ script: CRASHER, size: 1 });
      try {
        assert.deepEqual(await pool.run({ value: 1 }), { echo: 1 });
        await assert.rejects(pool.run({ crash }), WorkerCrashError);
        assert.deepEqual(await pool.run({ value: 2 }), { echo: 2 });
        assert.deepEqual({ crashed: pool.stats.crashed, started: pool.stats.started }, { crashed: 1, started: 2 });
      } finally {
        await pool.close();
      }
    });
  }

  it("fails a job whose worker reports an error, without replacing the worker", async () => {
    const pool = new WorkerPool({ script: CRASHER, size: 1 });
    try {
      await assert.rejects(pool.run({ fail: true }), /job failed/);
      assert.deepEqual(await pool.run({ value: 3 }), { echo: 3 });
      assert.equal(pool.stats.started, 1);
    } finally {
      await pool.close();
    }
  });

  it("drops a queued job when its signal aborts, so it never reaches a worker", async () => {
    const pool = new WorkerPool({ script: CRASHER, size: 1 });
    try {
      const first = pool.run({ value: "a", delayMs: 300 });
      const ctl = new AbortController();
      const queued = pool.run({ value: "b" }, { signal: ctl.signal });
      setTimeout(() => ctl.abort(new Error("client went away")), 50);
      await assert.rejects(queued, /client went away/);
      assert.deepEqual(await first, { echo: "a" });
      assert.deepEqual(await pool.run({ value: "c" }), { echo: "c" });
      assert.equal(pool.stats.completed, 2, "the aborted job never ran");
    } finally {
      await pool.close();
    }
  });

  it("runs jobs on several workers at once", async () => {
    const pool = new WorkerPool({ script: CRASHER, size: 2 });
    try {
      // Each job waits for the other to arrive: they can only both get through if they run at the same time.
      const rendezvous = new SharedArrayBuffer(4);
      type Met = { met: boolean; threadId: number };
      const [a, b] = await Promise.all([
        pool.run<Met>({ value: 1, rendezvous, parties: 2 }),
        pool.run<Met>({ value: 2, rendezvous, parties: 2 }),
      ]);
      assert.ok(a.met && b.met, "two workers in parallel");
      assert.notEqual(a.threadId, b.threadId);
      assert.equal(pool.stats.started, 2);
    } finally {
      await pool.close();
    }
  });

  it("takes jobs round-robin across groups, so a small job is not stuck behind a big one", async () => {
    const pool = new WorkerPool({ script: CRASHER, size: 1 });
    try {
      const done: string[] = [];
      const big = Array.from({ length: 20 }, (_, i) =>
        pool.run({ value: i, delayMs: 10 }, { group: "big" }).then(() => done.push(`big ${i}`)),
      );
      const small = pool.run({ value: "s" }, { group: "small" }).then(() => done.push("small"));
      await Promise.all([...big, small]);
      // The small job waits for at most the big job's running and next tile, not for all twenty.
      assert.ok(done.indexOf("small") <= 2, done.join(", "));
      assert.deepEqual(
        done.filter((d) => d !== "small"),
        big.map((_, i) => `big ${i}`),
        "a group's own jobs keep their order",
      );
    } finally {
      await pool.close();
    }
  });

  it("retries a worker that fails to restart with growing delays, refusing jobs meanwhile with QueueFull", async () => {
    const { pool, startTimes } = createFlakyPool([2, 3, 4]);
    try {
      assert.deepEqual(await pool.run({ value: 1 }), { echo: 1 });
      await assert.rejects(pool.run({ crash: "exit" }), WorkerCrashError);
      // Start 2 fails: the job that asked for it is refused, and so is the next one, during the backoff.
      await assert.rejects(pool.run({ value: 2 }), QueueFull);
      const refused = await pool.run({ value: 3 }).catch((e: unknown) => e);
      assert.ok(refused instanceof QueueFull && refused.retryAfterS >= 1, String(refused));
      const back = await runWhenBack<{ echo: number }>(pool, { value: 4 });
      assert.deepEqual(back.result, { echo: 4 });
      assert.equal(pool.startFailure, undefined, "never given up for good");
      assert.deepEqual([pool.stats.started, pool.stats.failedStarts], [5, 3]);
      // Backoff 100, 200, 400 ms after starts 2, 3 and 4 (timers only fire late, never early).
      const t = startTimes();
      for (const [i, delay] of [100, 200, 400].entries())
        assert.ok(t[i + 2] - t[i + 1] >= delay - 2, `start ${i + 3} came ${t[i + 2] - t[i + 1]} ms after the last`);
    } finally {
      await pool.close();
    }
  });

  it("caps the backoff, and a first start that fails for another reason than a missing runtime is retried too", async () => {
    const { pool, startTimes } = createFlakyPool([1, 2, 3, 4], { initial: 50, max: 100 });
    try {
      const back = await runWhenBack<{ echo: number }>(pool, { value: 1 });
      assert.deepEqual(back.result, { echo: 1 });
      assert.ok(back.refusals > 0);
      assert.equal(pool.startFailure, undefined);
      const t = startTimes();
      assert.equal(t.length, 5);
      for (const [i, delay] of [50, 100, 100, 100].entries()) assert.ok(t[i + 1] - t[i] >= delay - 2);
    } finally {
      await pool.close();
    }
  });

  it("reports a runtime that cannot load as a start failure, once and for all", async () => {
    const pool = new WorkerPool({ script: BROKEN, size: 1 });
    try {
      await assert.rejects(pool.run({ value: 1 }), WorkerStartError);
      await assert.rejects(pool.run({ value: 2 }), WorkerStartError);
      assert.equal(pool.stats.started, 1);
    } finally {
      await pool.close();
    }
  });
});
