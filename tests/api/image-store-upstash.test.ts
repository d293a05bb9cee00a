// The shared ImageStore suite on a real redis-server through the Upstash REST bridge, plus retries: a claim or
// finish whose response is lost after Redis ran it is not applied twice, and the retry gets the first answer.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import type { ImageRecord } from "@/lib/images/store";
import { createRedisClient } from "@/lib/store/redis/client";
import { openUpstashImageStore } from "@/lib/store/redis/images";
import { runImageStoreSuite } from "@/tests/helpers/image-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { skip, setup } = sharedUpstashBridge();

runImageStoreSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    return openUpstashImageStore(createRedisClient({ url: bridge.url, token: bridge.token }));
  },
  { skip },
);

describe("upstash image store when a response is lost after Redis ran the script", { skip }, () => {
  const scripts = (commands: string[][]) => commands.some((c) => /^(EVAL|EVALSHA)$/i.test(c[0]));

  it("a retried claim returns what the first attempt claimed, and a retried finish says it finished", async () => {
    const { bridge } = await setup();
    const store = openUpstashImageStore(createRedisClient({ url: bridge.url, token: bridge.token }));
    // Far in the future, so no other test's records are due at this clock.
    const now = Date.now() + 5000 * 86_400_000;
    const record = (i: number): ImageRecord => ({
      id: crypto.randomBytes(16).toString("hex"),
      owner: `key_lost${i}`,
      kind: "generate",
      url: "http://cdn.invalid/x.png",
      params: { prompt: "p", model: "alpha-pro", style: "Anime", ratio: "1:1" },
      width: 1,
      height: 1,
      bytes: 1,
      createdAt: now - 1000,
      expiresAt: now - 1,
      deleteTokenHash: "h",
    });
    const made = [record(1), record(2), record(3)];
    for (const r of made) await store.insert(r);
    // Loads every script first, so each request that loses its answer is one Redis really ran.
    const warm = { id: "warm", now: 0, until: 1 };
    await store.claimDue(warm, { now: 0, cutoff: null }, 1);
    await store.finish(made[0], "nobody");

    const lease = { id: crypto.randomBytes(8).toString("hex"), now, until: now + 60_000 };
    const lostClaim = bridge.dropResponses(1, scripts);
    const claimed = await store.claimDue(lease, { now, cutoff: null }, 1000);
    assert.equal(lostClaim(), 1, "the claim's first response was lost");
    const mine = claimed.filter((r) => made.some((m) => m.id === r.id));
    assert.equal(mine.length, 3, "the retry answered with the records the first attempt claimed");

    const lostFinish = bridge.dropResponses(1, scripts);
    assert.equal(await store.finish(made[0], lease.id), true);
    assert.equal(lostFinish(), 1, "the finish's first response was lost");
    for (const r of claimed) if (r.id !== made[0].id) assert.equal(await store.finish(r, lease.id), true);
  });
});
