// The job runner on a real SQLite job store: progress that always lands, cancel's quota rules, and the sweep.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { WorkAborted } from "@/lib/errors";
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
  const record = () => runner.newRecord({ kind: "generate", owner: "ip:x", units: [unit] });
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
});
