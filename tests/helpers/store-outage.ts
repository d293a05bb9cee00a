// A Redis backend's answer to a Redis that stops and comes back, the same on every transport: StoreUnavailable within
// 2 s while it is down (never "unlimited"), and working again after it returns, with nothing restarted.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { it } from "node:test";
import { StoreUnavailable } from "@/lib/errors";
import type { Bucket } from "@/lib/quota/types";
import type { Backend } from "@/lib/store/backend";
import type { RedisServer } from "./redis-server";

export function itFailsClosedWhileRedisIsDown(setup: () => Promise<{ redis: RedisServer; backend: Backend }>) {
  it("answers StoreUnavailable within 2 s while Redis is down, and recovers after a restart", async () => {
    const { redis, backend } = await setup();
    const b: Bucket = { name: `down-${crypto.randomBytes(4).toString("hex")}`, limit: 5, windowMs: 86_400_000 };
    assert.equal((await backend.quota.take(b, "ip-1")).ok, true);

    await redis.stop();
    try {
      const started = Date.now();
      await assert.rejects(backend.quota.take(b, "ip-1"), StoreUnavailable);
      await assert.rejects(backend.quota.peek(b, "ip-1"), StoreUnavailable);
      await assert.rejects(backend.keys.findKeyByHash("0".repeat(64)), StoreUnavailable);
      assert.equal(await backend.ping(), false);
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    } finally {
      await redis.start();
    }
    assert.equal(await backend.ping(), true);
    assert.equal((await backend.quota.take(b, "ip-1")).ok, true);
  });
}
