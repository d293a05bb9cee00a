// The job runner on a real SQLite job store: progress that always lands, cancel's quota rules, and the sweep.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ChainExhausted, WorkAborted } from "@/lib/errors";
import { JobRunner } from "@/lib/jobs/runner";
import type { HeldUnit } from "@/lib/quota/types";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setUp(leaseMs = 60_000) {
  const jobs = openSqliteBackend(fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-runner-"))).jobs;
  const refunded: HeldUnit[][] = [];
  const finished: string[] = [];
  const runner = new JobRunner({
    jobs,
    refund: async (units) => void refunded.push(units),
    describeFailure: (err) => ({ code: "server_error", message: String(err) }),
    onFinished: (job) => void finished.push(`${job.id}:${job.status}`),
    leaseMs,
    pollMs: 50,
  });
  const unit: HeldUnit = {
    bucket: { name: "free-gen", limit: 5, windowMs: 86_400_000 },
    identity: "ip:x",
    windowStart: 0,
  };
  const record = (units = 1) =>
    runner.newRecord({ kind: "generate", owner: "ip:x", units: Array.from({ length: units }, () => unit) });
  return { jobs, runner, refunded, finished, record };
}

describe("JobRunner", () => {
  it("writes the newest progress even when updates come faster than it writes", async () => {
    const { jobs, runner, record } = setUp();
    const job = record();
    const { done } = await runner.accept(job, async ({ begin, onProgress }) => {
      await begin();
      onProgress({ fraction: 0, stage: "decoding" });
      onProgress({ fraction: null, stage: "enhancing" });
      await sleep(600);
      return { ok: true };
    });
    await sleep(400);
    assert.equal((await jobs.get(job.id))?.progress.stage, "enhancing");
    await done;
    assert.equal((await jobs.get(job.id))?.status, "succeeded");
  });

  it("gives a queued job's units back on cancel, and keeps a running job's", async () => {
    const { jobs, runner, refunded, record } = setUp();
    const queued = record();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const waiting = await runner.accept(queued, async ({ begin, signal }) => {
      await Promise.race([
        gate,
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      ]);
      await begin();
      return { ok: true };
    });
    const canceled = await runner.cancel(queued.id);
    assert.equal(canceled?.status, "canceled");
    assert.equal(refunded.length, 1);
    release();
    await waiting.done;
    assert.equal((await jobs.get(queued.id))?.status, "canceled", "the dropped job never ran");

    const running = record();
    const started = await runner.accept(running, async ({ begin, signal }) => {
      await begin();
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new WorkAborted())));
      return {};
    });
    await sleep(100);
    assert.equal((await runner.cancel(running.id))?.status, "canceled");
    await started.done;
    assert.equal(refunded.length, 1, "the running job kept its unit");
  });

  it("fails and refunds the jobs of an instance whose lease ran out", async () => {
    const { jobs, runner, refunded, finished, record } = setUp();
    const orphan = { ...record(), internal: { ...record().internal, leaseUntil: Date.now() - 1, instance: "gone" } };
    await jobs.create(orphan);
    assert.equal(await runner.sweep(), 1);
    const swept = await jobs.get(orphan.id);
    assert.equal(swept?.status, "failed");
    assert.equal(swept?.error?.code, "server_error");
    assert.equal(refunded.length, 1);
    assert.deepEqual(finished, [`${orphan.id}:failed`]);
    assert.equal(await runner.sweep(), 0, "each job is swept once");
  });

  // A job of 4 images where 1 failed gives 1 unit back at once; the record must then hold 3, or a later failure (or
  // the sweep, if the instance dies) refunds the 4 and the caller gets 5 units back for a job that held 4.
  it("gives a failed image's unit back once, whatever fails after the give-back", async () => {
    const { jobs, runner, refunded, record } = setUp();
    const job = record(4);
    const { done } = await runner.accept(job, async ({ begin, giveBack }) => {
      await begin();
      await giveBack(1, 4);
      throw new Error("the store write after the batch failed");
    });
    await done;
    assert.equal((await jobs.get(job.id))?.status, "failed");
    assert.equal(refunded.flat().length, 4, "each held unit is refunded exactly once");
    assert.deepEqual(
      refunded.map((units) => units.length),
      [1, 3],
    );
  });

  it("leaves the sweep only the units a give-back kept", async () => {
    const { jobs, runner, refunded, record } = setUp();
    const job = record(4);
    let gaveBack!: () => void;
    const given = new Promise<void>((r) => (gaveBack = r));
    void runner.accept(job, async ({ begin, giveBack }) => {
      await begin();
      await giveBack(2, 4);
      gaveBack();
      // The instance dies here: the work never settles.
      return new Promise(() => undefined);
    });
    await given;
    assert.deepEqual((await jobs.get(job.id))?.internal.units.length, 2, "the record holds the units kept");
    assert.equal(await runner.sweep(Date.now() + 120_000), 1);
    assert.equal(refunded.flat().length, 4, "the swept job refunds only what it still held");
  });

  it("puts a job that requeueOn accepts back in the queue, units kept, and throws for the caller to queue it again", async () => {
    const { jobs, runner, refunded, finished, record } = setUp();
    const job = record(2);
    await jobs.create(job);
    const atCapacity = new ChainExhausted(true, 3);
    await assert.rejects(
      runner.execute(
        job,
        async ({ begin }) => {
          await begin();
          throw atCapacity;
        },
        (err) => err === atCapacity,
      ),
      (err) => err === atCapacity,
    );
    const requeued = await jobs.get(job.id);
    assert.equal(requeued?.status, "queued");
    assert.equal(requeued?.internal.units.length, 2, "the units stay with the job");
    assert.deepEqual(refunded, [], "nothing is refunded");
    assert.deepEqual(finished, [], "nor is the job finished");

    // Run again, it ends as usual; a failure requeueOn refuses fails the job and refunds it.
    const again = await runner.execute(
      requeued ?? job,
      async ({ begin }) => {
        await begin();
        throw new ChainExhausted(false);
      },
      () => false,
    );
    assert.equal(again?.status, "failed");
    assert.equal(refunded.length, 1);
  });
});
