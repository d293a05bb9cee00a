// The Redis backend on its TCP transport (REDIS_URL) against a real redis-server: every store contract suite the
// REST transport runs, the per-minute guard on @upstash/ratelimit's own script, and the failure modes (Redis down,
// Redis hung) that must mean "unavailable", never "unlimited".
import assert from "node:assert/strict";
import crypto from "node:crypto";
import net from "node:net";
import { after, describe, it } from "node:test";
import { createClient } from "redis";
import { StoreUnavailable } from "@/lib/errors";
import type { Bucket } from "@/lib/quota/types";
import { openUpstashBackend } from "@/lib/store/redis/backend";
import { createUpstashGuard } from "@/lib/store/redis/call-guard";
import { createRedisClient } from "@/lib/store/redis/client";
import { openUpstashImageStore } from "@/lib/store/redis/images";
import { openUpstashWebhookOutbox } from "@/lib/store/redis/outbox";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { runImageStoreSuite } from "@/tests/helpers/image-store-suite";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";
import { hasRedisServer, type RedisServer, startRedisServer } from "@/tests/helpers/redis-server";
import { itFailsClosedWhileRedisIsDown } from "@/tests/helpers/store-outage";
import { runStoreSuite } from "@/tests/helpers/store-suite";
import { runWebhookOutboxSuite } from "@/tests/helpers/webhook-outbox-suite";

const skip = hasRedisServer() ? false : "redis-server is not on PATH (apt-get install -y redis-server)";
let server: Promise<RedisServer> | undefined;
const setup = () => (server ??= startRedisServer());
after(async () => {
  if (server) await (await server).close();
});
/** The Redis backend's options on the TCP transport, which has no token. */
const tcp = async () => ({ url: (await setup()).url, token: "" });

runStoreSuite("redis (TCP)", async () => openUpstashBackend(await tcp()), { skip });
runJobStoreSuite("redis (TCP)", async () => openUpstashBackend(await tcp()));
runImageStoreSuite("redis (TCP)", async () => openUpstashImageStore(createRedisClient(await tcp())), { skip });
runConsoleStoreSuite("redis (TCP)", async () => openUpstashBackend({ ...(await tcp()), usageHistoryDays: 90 }), {
  skip,
});
runWebhookOutboxSuite(
  "redis (TCP)",
  async () => {
    const client = createRedisClient(await tcp());
    const namespace = `t${crypto.randomBytes(4).toString("hex")}`;
    return { open: () => openUpstashWebhookOutbox(client, { namespace }) };
  },
  { skip },
);

const bucket = (limit: number, windowMs = 86_400_000): Bucket => ({
  name: `tcp-${crypto.randomBytes(4).toString("hex")}`,
  limit,
  windowMs,
});

describe("redis (TCP) transport", { skip }, () => {
  it("runs @upstash/ratelimit's fixed window exactly, and EVALs its script once, then EVALSHA", async () => {
    const { url } = await setup();
    const raw = createClient({ url, RESP: 2 });
    await raw.connect();
    try {
      await raw.sendCommand(["CONFIG", "RESETSTAT"]);
      const guard = createUpstashGuard(createRedisClient({ url, token: "" }));
      const b = bucket(3, 60_000);
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await guard.take(b, "ip-1"));
      assert.deepEqual(
        results.map((r) => r.ok),
        [true, true, true, false, false],
      );
      assert.deepEqual(
        results.slice(0, 3).map((r) => r.remaining),
        [2, 1, 0],
      );
      assert.equal((await guard.take(b, "ip-2")).ok, true, "another identity has its own window");
      const stats = String(await raw.sendCommand(["INFO", "commandstats"]));
      const calls = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      assert.equal(calls("eval"), 1, stats);
      // Refused identities are answered from ratelimit's in-process cache, so not every take reaches Redis.
      assert.ok(calls("evalsha") >= 3, stats);
    } finally {
      await raw.quit();
    }
  });

  it("hands back Redis's own replies, as the REST client does with deserialization off", async () => {
    const redis = createRedisClient(await tcp());
    const k = `tcp:${crypto.randomUUID()}`;
    assert.equal(await redis.set(k, "123", { nx: true, px: 60_000 }), "OK");
    assert.equal(await redis.set(k, "456", { nx: true, px: 60_000 }), null);
    assert.equal(await redis.get(k), "123", "a number-like string stays a string");
    assert.equal(await redis.hset(`${k}:h`, { a: "1", b: "x" }), 2);
    assert.deepEqual(await redis.hgetall(`${k}:h`), ["a", "1", "b", "x"]);
    assert.deepEqual(await redis.hmget(`${k}:h`, "b", "zz"), ["x", null]);
    assert.deepEqual(await redis.hgetall(`${k}:none`), []);
    const script = redis.createScript<unknown[]>(
      "#!lua flags=allow-key-locking\nreturn {redis.call('INCRBY', KEYS[1], ARGV[1]), false, 'ok'}",
    );
    assert.deepEqual(await script.exec([`${k}:n`], ["2"]), [2, null, "ok"]);
    assert.deepEqual(await script.exec([`${k}:n`], ["3"]), [5, null, "ok"]);
    await redis.set(`${k}:s`, "abc");
    await assert.rejects(
      redis.createScript("return redis.call('INCR', KEYS[1])").exec([`${k}:s`], []),
      /not an integer/,
    );
  });
});

describe("redis (TCP) store when Redis fails", { skip }, () => {
  itFailsClosedWhileRedisIsDown(async () => {
    const redis = await setup();
    return { redis, backend: openUpstashBackend({ url: redis.url, token: "" }) };
  });

  it("fails closed when Redis accepts connections and never answers", async () => {
    const sockets = new Set<net.Socket>();
    const hung = net.createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    try {
      const url = `redis://127.0.0.1:${(hung.address() as net.AddressInfo).port}`;
      const store = openUpstashBackend({ url, token: "", timeoutMs: 300 });
      const guard = createUpstashGuard(createRedisClient({ url, token: "", timeoutMs: 300 }), { timeoutMs: 300 });
      const started = Date.now();
      await assert.rejects(store.quota.take(bucket(5), "ip-1"), StoreUnavailable);
      await assert.rejects(guard.take(bucket(5, 60_000), "ip-1"), StoreUnavailable);
      assert.equal(await store.ping(), false);
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });
});
