// The webhook outbox contract on a real redis-server through the Upstash REST bridge, and its scripts' safety
// when the bridge loses an answer after Redis ran the call (the client then sends it again).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { createRedisClient } from "@/lib/store/redis/client";
import { openUpstashWebhookOutbox } from "@/lib/store/redis/outbox";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";
import { runWebhookOutboxSuite } from "@/tests/helpers/webhook-outbox-suite";

const { skip, setup } = sharedUpstashBridge();

const freshNamespace = () => `t${crypto.randomBytes(4).toString("hex")}`;

runWebhookOutboxSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    const namespace = freshNamespace();
    return {
      open: () => openUpstashWebhookOutbox(createRedisClient({ url: bridge.url, token: bridge.token }), { namespace }),
    };
  },
  { skip },
);

describe("upstash webhook outbox with lost answers", { skip }, () => {
  const T0 = 1_700_000_000_000;
  const delivery = (id: string) => ({
    id,
    jobId: "job_1",
    keyId: "key_1",
    url: "https://hooks.example.com/in",
    host: "hooks.example.com",
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    body: "{}",
    nextAttemptAt: T0,
    createdAt: T0,
  });
  const evals = (commands: string[][]) => commands.some((c) => /^EVAL/i.test(c[0]));

  it("a claim whose answer was lost still hands the delivery to its caller, once", async () => {
    const { bridge } = await setup();
    const outbox = openUpstashWebhookOutbox(createRedisClient({ url: bridge.url, token: bridge.token }), {
      namespace: freshNamespace(),
    });
    await outbox.enqueue(delivery("msg_a"));
    // Loads the script, so the lost request is the claim itself, not a NOSCRIPT miss.
    assert.deepEqual(await outbox.claimDue(T0 - 1, 60_000, 10), []);
    const dropped = bridge.dropResponses(1, evals);
    const claimed = await outbox.claimDue(T0, 60_000, 10);
    assert.equal(dropped(), 1);
    assert.deepEqual(
      claimed.map((d) => d.id),
      ["msg_a"],
    );
    assert.deepEqual(await outbox.claimDue(T0, 60_000, 10), []);
    assert.equal(
      await outbox.recordAttempt("msg_a", claimed[0].lease, { attempts: 1, lastStatus: 200, retryAt: null }),
      true,
    );
  });

  it("an attempt whose answer was lost is recorded once and reported as recorded", async () => {
    const { bridge } = await setup();
    const outbox = openUpstashWebhookOutbox(createRedisClient({ url: bridge.url, token: bridge.token }), {
      namespace: freshNamespace(),
    });
    await outbox.enqueue(delivery("msg_b"));
    const [claimed] = await outbox.claimDue(T0, 60_000, 10);
    assert.equal(
      await outbox.recordAttempt("msg_b", "not-the-lease", { attempts: 9, lastStatus: 1, retryAt: null }),
      false,
    );
    const dropped = bridge.dropResponses(1, evals);
    const recorded = await outbox.recordAttempt("msg_b", claimed.lease, {
      attempts: 1,
      lastStatus: 500,
      retryAt: T0 + 5000,
    });
    assert.equal(dropped(), 1);
    assert.equal(recorded, true);
    assert.deepEqual(await outbox.get("msg_b"), {
      ...delivery("msg_b"),
      attempts: 1,
      lastStatus: 500,
      nextAttemptAt: T0 + 5000,
    });
  });
});
