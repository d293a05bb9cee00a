// The work tier's pieces that need no Redis: WORK_TIER's configuration, and a job's data on its way through Redis
// (buffers inline when small, in the storage's temporary area otherwise, never over 1 MiB).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parseConfig } from "@/lib/config";
import { createLocalStorage } from "@/lib/storage/local";
import { dropJobData, INLINE_BUFFER_BYTES, packJobData, unpackJobData } from "@/lib/tier/payload";

const PEPPER = "p".repeat(40);

describe("WORK_TIER", () => {
  it("defaults to inline, with no Redis", () => {
    assert.deepEqual(parseConfig({}).tier, { kind: "inline" });
  });

  it("takes bullmq with REDIS_URL and the worker's settings", () => {
    const tier = parseConfig({
      WORK_TIER: "bullmq",
      REDIS_URL: "redis://127.0.0.1:6379",
      KEY_PEPPER: PEPPER,
      WORKER_CONCURRENCY: "3",
    }).tier;
    assert.equal(tier.kind, "bullmq");
    assert.equal(tier.kind === "bullmq" && tier.concurrency, 3);
  });

  it("refuses bullmq without REDIS_URL, and says why for a REST-only Upstash", () => {
    assert.throws(() => parseConfig({ WORK_TIER: "bullmq" }), /WORK_TIER=bullmq needs REDIS_URL/);
    assert.throws(
      () =>
        parseConfig({
          WORK_TIER: "bullmq",
          UPSTASH_REDIS_REST_URL: "https://example.upstash.io",
          UPSTASH_REDIS_REST_TOKEN: "token",
          KEY_PEPPER: PEPPER,
        }),
      /Upstash's REST API cannot carry BullMQ's queues/,
    );
    assert.throws(() => parseConfig({ WORK_TIER: "kafka" }), /WORK_TIER/);
  });
});

describe("a job's data through Redis", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-tier-"));
  const storage = createLocalStorage(dir, undefined);
  const prefix = `wt_${"a".repeat(32)}`;

  it("keeps small buffers inline and large ones in the temporary area, and reads both back", async () => {
    const small = Buffer.from("small bytes");
    const large = Buffer.alloc(INLINE_BUFFER_BYTES * 4, 7);
    const spec = { kind: "enhance", input: { bytes: large, mask: { data: small, width: 2 } }, n: 2, skip: undefined };
    const packed = await packJobData(spec, storage.temp, prefix);
    const text = JSON.stringify(packed);
    assert.ok(text.length < 4096, "the large buffer is not in the job's data");
    assert.equal(packed.temp.length, 1);
    const back = await unpackJobData<typeof spec>(JSON.parse(text), storage.temp);
    assert.deepEqual(back.input.bytes, large);
    assert.deepEqual(back.input.mask.data, small);
    assert.equal(back.n, 2);
    assert.ok(!("skip" in back));

    await dropJobData(packed, storage.temp);
    await assert.rejects(unpackJobData(packed, storage.temp), /no longer in the temporary area/);
  });

  it("refuses data that would still be over 1 MiB, leaving nothing behind", async () => {
    const words = Array.from({ length: 80_000 }, (_, i) => `word number ${i}`);
    await assert.rejects(packJobData({ kind: "generate", words, big: Buffer.alloc(200_000) }, storage.temp, prefix), {
      name: "RangeError",
    });
    assert.equal(await storage.temp.open(`${prefix}_0`), null);
  });
});
