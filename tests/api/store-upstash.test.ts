// Runs the Store contract against the Upstash backend on a real redis-server (through the REST bridge),
// plus the failure modes that matter in production: Redis down or hung must mean "unavailable", never "unlimited".
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { Redis } from "@upstash/redis";
import { StoreUnavailable } from "@/lib/errors";
import type { Bucket } from "@/lib/quota/types";
import { openUpstashBackend } from "@/lib/store/redis/backend";
import { itFailsClosedWhileRedisIsDown } from "@/tests/helpers/store-outage";
import { runStoreSuite } from "@/tests/helpers/store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { skip, setup } = sharedUpstashBridge();

runStoreSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    return openUpstashBackend({ url: bridge.url, token: bridge.token });
  },
  { skip },
);

describe("upstash bridge", { skip }, () => {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const { bridge } = await setup();
    const res = await fetch(`${bridge.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

  it("refuses a wrong token", async () => {
    const { bridge } = await setup();
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: "Bearer nope" },
      body: '["PING"]',
    });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: "Unauthorized" });
  });

  it("runs /pipeline in order, with per-command errors and base64 strings", async () => {
    const k = `bridge:${crypto.randomUUID()}`;
    const cmds = [
      ["SET", k, "héllo wörld"],
      ["GET", k],
      ["INCR", k],
      ["GET", `${k}:missing`],
      ["APPEND", k, "!"],
    ];
    const { status, json } = await post("/pipeline", cmds, { "Upstash-Encoding": "base64" });
    assert.equal(status, 200);
    assert.ok(Array.isArray(json));
    assert.deepEqual(json[0], { result: b64("OK") });
    assert.deepEqual(json[1], { result: b64("héllo wörld") });
    assert.match((json[2] as { error: string }).error, /not an integer/);
    assert.deepEqual(json[3], { result: null });
    assert.deepEqual(json[4], { result: Buffer.byteLength("héllo wörld!") });

    const plain = await post("/", ["GET", k]);
    assert.deepEqual(plain, { status: 200, json: { result: "héllo wörld!" } });
    const bad = await post("/", ["INCR", k]);
    assert.equal(bad.status, 400);
    assert.match((bad.json as { error: string }).error, /not an integer/);
  });

  it("runs /multi-exec as one transaction and refuses connection-state commands", async () => {
    const { bridge } = await setup();
    const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
    const k = `bridge:${crypto.randomUUID()}`;
    assert.deepEqual(await redis.multi().set(k, 1).incr(k).incr(k).exec(), ["OK", 2, 3]);
    const refused = await post("/", ["MULTI"]);
    assert.equal(refused.status, 400);
  });

  it("accepts Upstash's allow-key-locking scripts and maps their sha1", async () => {
    const { bridge } = await setup();
    const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
    const source = "#!lua flags=allow-key-locking\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])";
    const k = `bridge:${crypto.randomUUID()}`;
    const script = redis.createScript<number>(source);
    assert.equal(await script.exec([k], ["2"]), 2); // EVALSHA → NOSCRIPT → EVAL
    assert.equal(await script.exec([k], ["3"]), 5); // EVALSHA of the original sha, translated
    const sha = crypto.createHash("sha1").update(source).digest("hex");
    assert.equal(await redis.scriptLoad(source), sha);
    assert.deepEqual(await redis.scriptExists(sha), [1]);
  });
});

describe("upstash store when a response is lost after Redis applied the command", { skip }, () => {
  // @upstash/redis retries a request whose connection failed; the retry must not apply the change a second time.
  const writes = (commands: string[][]) =>
    commands.some((c) => /^(EVAL|EVALSHA|HSET|HSETNX|SET|INCR|INCRBY|DECR|DECRBY)$/i.test(c[0]));
  const bucket = (limit: number): Bucket => ({
    name: `lost-${crypto.randomBytes(4).toString("hex")}`,
    limit,
    windowMs: 86_400_000,
  });

  it("counts a take once, and gives a refund back once", async () => {
    const { bridge } = await setup();
    const store = openUpstashBackend({ url: bridge.url, token: bridge.token });
    const b = bucket(5);
    // Loads the scripts first, so the request that loses its answer is one that Redis really ran.
    await store.quota.refund(b, "ip-1", (await store.quota.take(b, "ip-1")).windowStart);
    assert.equal((await store.quota.take(b, "ip-1")).used, 1);

    const lostTake = bridge.dropResponses(1, writes);
    const t = await store.quota.take(b, "ip-1");
    assert.equal(lostTake(), 1, "the take's first response was lost");
    assert.equal(t.ok, true);
    assert.equal(t.used, 2);
    assert.equal((await store.quota.peek(b, "ip-1")).used, 2);

    const lostRefund = bridge.dropResponses(1, writes);
    await store.quota.refund(b, "ip-1", t.windowStart);
    assert.equal(lostRefund(), 1, "the refund's first response was lost");
    assert.equal((await store.quota.peek(b, "ip-1")).used, 1);
  });

  it("reports a refused take as refused, and leaves the counter alone", async () => {
    const { bridge } = await setup();
    const store = openUpstashBackend({ url: bridge.url, token: bridge.token });
    const b = bucket(2);
    assert.equal((await store.quota.take(b, "ip-2")).ok, true);
    assert.equal((await store.quota.take(b, "ip-2")).ok, true);

    const lost = bridge.dropResponses(1, writes);
    const t = await store.quota.take(b, "ip-2");
    assert.equal(lost(), 1);
    assert.equal(t.ok, false);
    assert.equal(t.used, 2);
    // A refund of one unit frees exactly one.
    await store.quota.refund(b, "ip-2", t.windowStart);
    assert.equal((await store.quota.take(b, "ip-2")).ok, true);
    assert.equal((await store.quota.take(b, "ip-2")).ok, false);
  });

  it("inserts a key and adds a waitlist entry once, and says so", async () => {
    const { bridge } = await setup();
    const store = openUpstashBackend({ url: bridge.url, token: bridge.token });
    const run = crypto.randomBytes(4).toString("hex");
    const key = (n: string) => ({
      id: `key-lost-${run}-${n}`,
      label: n,
      hash: crypto.randomBytes(32).toString("hex"),
      last4: "abcd",
      plan: "pro" as const,
      createdAt: "2031-01-01T00:00:00.000Z",
      revokedAt: null,
    });
    await store.keys.insertKey(key("warm"));

    const k = key("lost");
    const lostKey = bridge.dropResponses(1, writes);
    await store.keys.insertKey(k);
    assert.equal(lostKey(), 1);
    assert.deepEqual(await store.keys.findKeyByHash(k.hash), k);
    assert.equal((await store.keys.listKeys()).filter((r) => r.id === k.id).length, 1);
    // A different key under a taken id, or the same hash under another id, is still refused.
    await assert.rejects(store.keys.insertKey({ ...key("dup"), id: k.id }), /already exists/);
    await assert.rejects(store.keys.insertKey({ ...key("dup"), hash: k.hash }), /already exists/);

    await store.waitlist.addToWaitlist({
      email: `warm-${run}@example.com`,
      useCase: null,
      createdAt: "2031-01-01T00:00:00Z",
    });
    const lostSignup = bridge.dropResponses(1, writes);
    const email = `lost-${run}@example.com`;
    assert.equal(
      await store.waitlist.addToWaitlist({ email, useCase: "x", createdAt: "2031-01-02T00:00:00.000Z" }),
      true,
    );
    assert.equal(lostSignup(), 1);
    assert.equal(
      await store.waitlist.addToWaitlist({ email, useCase: "y", createdAt: "2031-01-03T00:00:00.000Z" }),
      false,
    );
    assert.deepEqual(
      (await store.waitlist.listWaitlist())
        .filter((e) => e.email === email)
        .map(({ email, useCase, createdAt }) => ({ email, useCase, createdAt })),
      [{ email, useCase: "x", createdAt: "2031-01-02T00:00:00.000Z" }],
    );
  });
});

describe("upstash store when Redis fails", { skip }, () => {
  const bucket = (): Bucket => ({
    name: `down-${crypto.randomBytes(4).toString("hex")}`,
    limit: 5,
    windowMs: 86_400_000,
  });

  itFailsClosedWhileRedisIsDown(async () => {
    const { redis, bridge } = await setup();
    return { redis, backend: openUpstashBackend({ url: bridge.url, token: bridge.token }) };
  });

  it("fails closed when the limiter times out", async () => {
    // Accepts requests and never answers: a hung Redis/REST endpoint.
    const hung = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
      const store = openUpstashBackend({ url, token: "t", timeoutMs: 300 });
      const started = Date.now();
      await assert.rejects(store.quota.take(bucket(), "ip-1"), StoreUnavailable);
      assert.ok(Date.now() - started < 2000);
      assert.equal(await store.ping(), false);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });
});
