// S3 storage against a real S3 server: OpenStack Swift with its s3api layer (tests/helpers/swift-s3.ts). The
// storage contract suite, a wrong secret, and the server going away mid-run and coming back.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CreateBucketCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { StorageUnavailable } from "@/lib/errors";
import { storeImage } from "@/lib/images/library";
import { sweepImages } from "@/lib/images/sweep";
import { createS3Storage, type S3StorageOptions } from "@/lib/storage/s3";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { runStorageSuite, TINY_PNG } from "@/tests/helpers/storage-suite";
import { hasSwift, type SwiftS3, startSwiftS3 } from "@/tests/helpers/swift-s3";

const skip = hasSwift() ? false : "Swift (swift-proxy, swift-account, swift-container, swift-object) is not installed";
const BUCKET = "darkroom-test";
let swift: SwiftS3;

/** A storage on the test bucket under a fresh prefix, so each test sees only its own objects. */
function s3Storage(overrides: Partial<S3StorageOptions> = {}) {
  return createS3Storage({
    bucket: BUCKET,
    endpoint: swift.endpoint,
    forcePathStyle: true,
    prefix: `t-${crypto.randomBytes(6).toString("hex")}/`,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
    ...overrides,
  });
}

/** A plain SDK client for the test's own setup and checks. */
function adminClient() {
  return new S3Client({
    region: "us-east-1",
    endpoint: swift.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
}

describe("S3 storage on OpenStack Swift", { skip }, () => {
  before(async () => {
    swift = await startSwiftS3();
    const client = adminClient();
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
  });
  after(async () => {
    await swift?.close();
  });

  runStorageSuite("s3 (Swift s3api)", async () => s3Storage(), {
    missingId: crypto.randomBytes(16).toString("hex"),
    foreignIds: [`darkroom/${"0".repeat(32)}-abc.png`, "../x", "temp/abc", `${"0".repeat(32)}.png`, ""],
  });

  it("URLs are under PUBLIC_CDN_URL when set, else under the app's /cdn", async () => {
    const own = await s3Storage().put(TINY_PNG, "http://app.test:3000");
    assert.match(own.url, /^http:\/\/app\.test:3000\/cdn\/[a-f0-9]{32}\.png$/);
    const cdn = await s3Storage({ publicBase: "https://img.example.com/i" }).put(TINY_PNG, "http://x", "webp");
    assert.match(cdn.url, /^https:\/\/img\.example\.com\/i\/[a-f0-9]{32}\.webp$/);
  });

  it("an image over 5 MiB is written in parts (a multipart ETag) and reads back whole", async () => {
    const prefix = `t-${crypto.randomBytes(6).toString("hex")}/`;
    const big = crypto.randomBytes(11 * 1024 * 1024);
    const stored = await s3Storage({ prefix }).put(big, "http://app.test", "avif");
    const client = adminClient();
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}${stored.id}` }));
    client.destroy();
    assert.match(head.ETag ?? "", /-3"$/, "three parts of 5 MiB");
    assert.equal(head.ContentLength, big.length);
    assert.equal(head.ContentType, "image/avif");
    assert.equal(head.CacheControl, "public, max-age=31536000, immutable");
  });

  it("the retention sweep removes the objects of due images, and old temporary objects", async () => {
    const storage = s3Storage();
    const images = openSqliteBackend(fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-s3-sweep-"))).images;
    const params = { prompt: "a cat", model: "alpha-pro", style: "Anime", ratio: "1:1", seed: 7 };
    const stored = [];
    for (const format of ["png", "avif"] as const) {
      stored.push(
        await storeImage(
          storage,
          TINY_PNG,
          "http://app.test",
          { kind: "generate", params, width: 1, height: 1, format },
          { images, owner: "key_a", retentionDays: 1 },
        ),
      );
    }
    const key = crypto.randomBytes(16).toString("hex");
    await storage.temp.put(key, TINY_PNG);
    const early = await sweepImages({ images, storage, retentionDays: 1 });
    assert.equal(early.removed, 0);
    for (const image of stored) assert.ok(await storage.open(image.id).then((o) => o?.stream.cancel().then(() => 1)));
    const late = await sweepImages({ images, storage, retentionDays: 1 }, { now: () => Date.now() + 2 * 86_400_000 });
    assert.equal(late.removed, 2);
    for (const image of stored) assert.equal(await storage.open(image.id), null);
    assert.equal(await storage.temp.open(key), null, "a day later the temporary object is gone too");
  });

  it("a wrong secret is a clear error from the check and from every write", async () => {
    const storage = s3Storage({ credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: "wrong" } });
    const err = await storage.check().catch((e: unknown) => e);
    assert.ok(err instanceof StorageUnavailable, String(err));
    assert.match(err.message, /AWS_SECRET_ACCESS_KEY/);
    const put = await storage.put(TINY_PNG, "http://app.test").catch((e: unknown) => e);
    assert.ok(put instanceof StorageUnavailable, String(put));
    assert.match(put.message, /AWS_SECRET_ACCESS_KEY/);
  });

  it("a missing bucket is a clear error from the check", async () => {
    const err = await s3Storage({ bucket: "no-such-bucket" })
      .check()
      .catch((e: unknown) => e);
    assert.ok(err instanceof StorageUnavailable, String(err));
    assert.match(err.message, /S3_BUCKET does not exist/);
  });

  it("the server going away fails every call with StorageUnavailable within the deadline, then recovers", async () => {
    const storage = s3Storage({ deadlineMs: 3000, maxAttempts: 2 });
    const kept = await storage.put(TINY_PNG, "http://app.test");
    await swift.stopProxy();
    try {
      const started = Date.now();
      for (const attempt of [
        () => storage.put(TINY_PNG, "http://app.test"),
        () => storage.open(kept.id),
        () => storage.delete(kept.id),
        () => storage.check(),
        () => storage.temp.put(crypto.randomBytes(16).toString("hex"), TINY_PNG),
      ]) {
        const err = await attempt().then(
          () => assert.fail("a call succeeded with the server down"),
          (e: unknown) => e,
        );
        assert.ok(err instanceof StorageUnavailable, String(err));
      }
      assert.ok(Date.now() - started < 5 * 3000, "calls were not bounded by their deadline");
    } finally {
      await swift.startProxy();
    }
    await storage.check();
    const opened = await storage.open(kept.id);
    assert.ok(opened, "the image stored before the outage is gone");
    await opened.stream.cancel();
  });
});
