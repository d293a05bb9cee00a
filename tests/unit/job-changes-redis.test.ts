// Job changes pushed between instances over REDIS_URL (Redis pub/sub): an event stream on one instance hears a job
// written by another at once, not at its slow safety tick; the reads stay one per change; when Redis goes away the
// watcher polls again, and pushes resume when it returns.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { JobStore } from "@/lib/jobs/store";
import type { JobRecord } from "@/lib/jobs/types";
import { createJobWatcher } from "@/lib/jobs/watch";
import { openRedisBackend, openUpstashBackend, type RedisBackend } from "@/lib/store/redis/backend";
import { createRedisClient } from "@/lib/store/redis/client";
import { hasRedisServer, type RedisServer, startRedisServer } from "../helpers/redis-server";

const skip = hasRedisServer() ? false : "redis-server is not installed";

function newJob(): JobRecord {
  return {
    id: `job_${crypto.randomBytes(16).toString("hex")}`,
    kind: "generate",
    owner: "ip:192.0.2.1",
    status: "queued",
    created_at: new Date().toISOString(),
    progress: { fraction: null, queue_position: 1, stage: "queued" },
    internal: { instance: "inst_a", leaseUntil: Date.now() + 60_000, units: [] },
  };
}

const until = async (what: string, check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("job changes pushed over REDIS_URL", { skip }, () => {
  let redis: RedisServer;
  let a: RedisBackend;
  let b: RedisBackend;

  before(async () => {
    redis = await startRedisServer();
    a = openUpstashBackend({ url: redis.url, token: "" });
    b = openUpstashBackend({ url: redis.url, token: "" });
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.close();
  });

  it("offers a change feed on TCP only, not on the REST transport", () => {
    assert.ok(a.jobChanges, "REDIS_URL pushes");
    const rest = openRedisBackend(createRedisClient({ url: "https://127.0.0.1:9", token: "t" }), {
      usageHistoryDays: 0,
    });
    assert.equal(rest.jobChanges, undefined, "Upstash REST has no subscriptions, and each publish is billed");
  });

  it("a stream on instance B hears instance A's write at once, with one read per change", async () => {
    let reads = 0;
    const counted: Pick<JobStore, "getMany"> = {
      getMany: (ids) => {
        reads++;
        return b.jobs.getMany(ids);
      },
    };
    // The safety tick is a minute: only a push can deliver within the test's seconds.
    const watcher = createJobWatcher(counted, { tickMs: 60_000, pushedTickMs: 60_000 });
    const stop = b.jobChanges?.subscribe(
      (id) => watcher.changed(id),
      (live) => watcher.setPushed(live),
    );
    const job = newJob();
    await a.jobs.create(job);
    const heard: string[] = [];
    const unwatch = watcher.watch(job.id, (rec) => heard.push(rec?.status ?? "gone"));
    watcher.poke();
    await until("the first record", () => heard.length === 1);
    await new Promise((r) => setTimeout(r, 200)); // the subscription is live

    const before = reads;
    const started = performance.now();
    await a.jobs.transition(job.id, ["queued"], { status: "running" });
    await until("the pushed change", () => heard.length === 2);
    const delay = performance.now() - started;
    assert.deepEqual(heard, ["queued", "running"]);
    assert.ok(delay < 1000, `pushed within a second (${delay.toFixed(0)} ms)`);
    assert.equal(reads - before, 1, "one read for one change");

    // A change to a job nobody here watches costs no read.
    const other = newJob();
    await a.jobs.create(other);
    await a.jobs.transition(other.id, ["queued"], { status: "running" });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(reads - before, 1);

    unwatch();
    watcher.close();
    await stop?.();
  });

  it("polls at the normal tick while Redis is away, and hears pushes again once it is back", async () => {
    const live: boolean[] = [];
    const watcher = createJobWatcher(b.jobs, { tickMs: 100, pushedTickMs: 60_000 });
    const stop = b.jobChanges?.subscribe(
      (id) => watcher.changed(id),
      (on) => {
        live.push(on);
        watcher.setPushed(on);
      },
    );
    await until("the subscription", () => live.at(-1) === true);
    await redis.stop();
    await until("the lost subscription", () => live.at(-1) === false);
    await redis.start();
    await until("the subscription back", () => live.at(-1) === true, 10_000);

    const job = newJob();
    await a.jobs.create(job);
    const heard: string[] = [];
    const unwatch = watcher.watch(job.id, (rec) => heard.push(rec?.status ?? "gone"));
    watcher.poke();
    await until("the first record", () => heard.length === 1);
    await a.jobs.transition(job.id, ["queued"], { status: "running" });
    await until("the pushed change after the restart", () => heard.length === 2, 2000);
    unwatch();
    watcher.close();
    await stop?.();
  });
});
