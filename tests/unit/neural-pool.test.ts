// The inference worker pool with real worker threads: crashes are reported and replaced, aborted queued jobs never run.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { WorkerCrashError, WorkerPool, WorkerStartError } from "@/lib/enhance/neural/pool";

const CRASHER = path.resolve(__dirname, "../fixtures/crash-worker.cjs");
const BROKEN = path.resolve(__dirname, "../fixtures/broken-worker.cjs");

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
      const t = performance.now();
      await Promise.all([pool.run({ value: 1, delayMs: 400 }), pool.run({ value: 2, delayMs: 400 })]);
      assert.ok(performance.now() - t < 750, "two workers in parallel");
      assert.equal(pool.stats.started, 2);
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
