// GPU_SERVER_CONCURRENCY: a pool never gives one server more calls than its cap, and two pools (two worker
// processes) sharing the count in a real redis-server never do either; a call beyond the cap waits for a free server,
// and an abort ends the wait. The same Redis slots cap each key's running jobs on the work tier.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { ServerPool } from "@/lib/engines/local/pool";
import { createProcessSlots, type SharedSlots } from "@/lib/engines/local/slots";
import { createRedisSlots, slotKeyOf } from "@/lib/tier/slots";
import { hasRedisServer, type RedisServer, startRedisServer } from "../helpers/redis-server";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `calls` calls through `pools` in turn, each holding its server for `holdMs`; the most held at once per server. */
async function mostAtOnce(pools: ServerPool[], calls: number, holdMs: number): Promise<Map<string, number>> {
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      pools[i % pools.length].run(
        { requestId: `r${i}`, signal: new AbortController().signal, cancelled: () => false },
        async (server) => {
          const held = (now.get(server.url) ?? 0) + 1;
          now.set(server.url, held);
          most.set(server.url, Math.max(most.get(server.url) ?? 0, held));
          await sleep(holdMs);
          now.set(server.url, held - 1);
        },
      ),
    ),
  );
  return most;
}

describe("a GPU server's cap in one process", () => {
  it("gives each server at most its cap of calls, the rest waiting for a free one", async () => {
    const pool = new ServerPool("comfyui", ["http://gpu-a", "http://gpu-b"], Date.now, createProcessSlots(1));
    const most = await mostAtOnce([pool], 6, 40);
    assert.deepEqual(Object.fromEntries(most), { "http://gpu-a": 1, "http://gpu-b": 1 });
  });

  it("without a cap, sends calls at once as before", async () => {
    const pool = new ServerPool("comfyui", ["http://gpu-a"]);
    const most = await mostAtOnce([pool], 3, 40);
    assert.equal(most.get("http://gpu-a"), 3);
  });

  it("stops waiting for a slot when the call is aborted", async () => {
    const pool = new ServerPool("a1111", ["http://gpu-a"], Date.now, createProcessSlots(1));
    let release: () => void = () => undefined;
    const holding = pool.run(
      { requestId: "first", signal: new AbortController().signal, cancelled: () => false },
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const aborted = new AbortController();
    let ran = false;
    const waiting = pool.run({ requestId: "second", signal: aborted.signal, cancelled: () => true }, async () => {
      ran = true;
    });
    await sleep(100);
    aborted.abort();
    await assert.rejects(waiting);
    assert.equal(ran, false, "the aborted call never reached the server");
    release();
    await holding;
  });
});

describe("slots shared in Redis", { skip: hasRedisServer() ? false : "redis-server is not installed" }, () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  const slotsOf = (limit: number): SharedSlots =>
    createRedisSlots(() => {
      const client = new Redis(redis.url);
      clients.push(client);
      return client;
    }, limit);

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await redis?.close();
  });

  it("hold a server's cap across two pools, as two workers' pools are", async () => {
    const urls = ["http://gpu-a", "http://gpu-b"];
    const pools = [
      new ServerPool("comfyui", urls, Date.now, slotsOf(1)),
      new ServerPool("comfyui", urls, Date.now, slotsOf(1)),
    ];
    const most = await mostAtOnce(pools, 8, 60);
    assert.deepEqual(Object.fromEntries(most), { "http://gpu-a": 1, "http://gpu-b": 1 });
  });

  it("give a slot back when freed, once, and leave no holder behind", async () => {
    const slots = slotsOf(2);
    const first = await slots.tryTake("owner key_1");
    const second = await slots.tryTake("owner key_1");
    assert.ok(first && second);
    assert.equal(await slots.tryTake("owner key_1"), null, "a third is refused at a cap of 2");
    assert.ok(await slots.tryTake("owner key_2"), "another name has its own slots");
    first();
    first();
    const check = new Redis(redis.url);
    clients.push(check);
    await sleep(50);
    assert.equal(await check.zcard(slotKeyOf("owner key_1")), 1, "freeing twice frees one slot");
    const third = await slots.tryTake("owner key_1");
    assert.ok(third);
    second();
    third();
    await sleep(50);
    assert.equal(await check.zcard(slotKeyOf("owner key_1")), 0);
  });

  it("free a holder's slot once its hold lapses unrenewed (its worker died)", async () => {
    const check = new Redis(redis.url);
    clients.push(check);
    const key = slotKeyOf("comfyui http://gpu-dead");
    // A hold whose renewals stopped: its lapse time is already past.
    await check.zadd(key, 1, "dead-worker");
    const slots = slotsOf(1);
    const taken = await slots.tryTake("comfyui http://gpu-dead");
    assert.ok(taken, "the lapsed hold does not count");
    assert.equal(await check.zcard(key), 1, "the new holder alone");
    assert.equal(await check.zscore(key, "dead-worker"), null);
    taken();
  });
});
