// The app on S3 storage against a real S3 server (OpenStack Swift's s3api): two instances on one Redis (REDIS_URL)
// and one bucket, each with its own DATA_DIR, serve each other's /cdn URLs; deletes by token, by the operator's CLI
// and by revoking a key with its images remove the objects; PUBLIC_CDN_URL URLs resolve from a public bucket; and
// the bucket going away mid-run answers 503 busy with the unit back, /api/status degraded and /api/ready not ready,
// until it is back.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CreateBucketCommand, HeadObjectCommand, PutBucketAclCommand, S3Client } from "@aws-sdk/client-s3";
import { type App, createKey, runScript, startApp } from "../helpers/app";
import { BROWSER, call, generate } from "../helpers/http";
import { hasRedisServer, type RedisServer, startRedisServer } from "../helpers/redis-server";
import { hasSwift, type SwiftS3, startSwiftS3 } from "../helpers/swift-s3";

const skip = hasSwift() && hasRedisServer() ? false : "Swift and redis-server are needed";
const BUCKET = "darkroom-app";
const ADMIN_TOKEN = `admin-${crypto.randomBytes(24).toString("hex")}`;

describe("the app on S3 storage (Swift s3api)", { skip }, () => {
  let swift: SwiftS3;
  let redis: RedisServer;
  let client: S3Client;
  let env: Record<string, string>;
  let a: App;
  let b: App;
  let ip = 0;
  const from = () => `127.0.9.${++ip}`;

  /** The bucket's object for an image URL: its metadata, or null when it is gone. */
  const objectOf = async (url: string) => {
    const key = `app/${path.basename(new URL(url).pathname)}`;
    return client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).catch((err: { name?: string }) => {
      if (err.name === "NotFound") return null;
      throw err;
    });
  };

  before(async () => {
    redis = await startRedisServer();
    swift = await startSwiftS3();
    client = new S3Client({
      region: "us-east-1",
      endpoint: swift.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
    });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    env = {
      REDIS_URL: redis.url,
      KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
      ADMIN_TOKEN,
      BLOB_READ_WRITE_TOKEN: "",
      S3_BUCKET: BUCKET,
      S3_PREFIX: "app",
      S3_FORCE_PATH_STYLE: "true",
      AWS_ENDPOINT_URL: swift.endpoint,
      AWS_ACCESS_KEY_ID: swift.accessKeyId,
      AWS_SECRET_ACCESS_KEY: swift.secretAccessKey,
    };
    // Each its own DATA_DIR: nothing but the bucket is shared for images.
    [a, b] = await Promise.all([startApp({ name: "s3-a", env }), startApp({ name: "s3-b", env })]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    client?.destroy();
    await Promise.all([swift?.close(), redis?.close()]);
  });

  it("each instance serves the other's images from the bucket, with their type, length and cache headers", async () => {
    for (const [maker, server, format, type] of [
      [a, b, undefined, "image/png"],
      [b, a, "webp", "image/webp"],
    ] as const) {
      const res = await generate(
        maker.url,
        { prompt: `harbour ${format ?? "png"}`, output_format: format },
        { from: from() },
      );
      assert.equal(res.status, 200, res.text);
      assert.ok(res.json.url.startsWith(`${maker.url}/cdn/`), res.json.url);
      const object = await objectOf(res.json.url);
      assert.ok(object, "the image is in the bucket");
      assert.equal(fs.existsSync(path.join(maker.dataDir, "images")), false, "nothing is written to DATA_DIR");

      const viaOther = await call(server.url, new URL(res.json.url).pathname);
      assert.equal(viaOther.status, 200);
      assert.equal(viaOther.headers["content-type"], type);
      assert.equal(viaOther.headers["content-length"], String(object.ContentLength));
      assert.equal(viaOther.body.length, object.ContentLength);
      assert.equal(viaOther.headers["cache-control"], "public, max-age=31536000, immutable");
      assert.equal(viaOther.headers["x-content-type-options"], "nosniff");
      const viaMaker = await call(maker.url, new URL(res.json.url).pathname);
      assert.ok(viaMaker.body.equals(viaOther.body), "both instances serve the same bytes");
      const head = await call(server.url, new URL(res.json.url).pathname, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers["content-length"], String(object.ContentLength));
      const missing = await call(server.url, `/cdn/${"0".repeat(32)}.png`);
      assert.equal(missing.status, 404);
    }
  });

  it("deletes by token on one instance remove the object: 404 from both", async () => {
    const made = await generate(a.url, { prompt: "to be deleted" }, { from: from() });
    assert.equal(made.status, 200, made.text);
    const del = await call(b.url, `/api/images/${made.json.id}`, {
      method: "DELETE",
      headers: { ...BROWSER, "X-Delete-Token": made.json.delete_token },
      from: from(),
    });
    assert.equal(del.status, 200, del.text);
    assert.equal(await objectOf(made.json.url), null);
    for (const app of [a, b]) assert.equal((await call(app.url, new URL(made.json.url).pathname)).status, 404);
  });

  it("the images CLI and revoking a key with its images remove the objects", async () => {
    const { key, id } = await createKey(a, "s3 leaving");
    const auth = { Authorization: `Bearer ${key}` };
    const made = [];
    for (const prompt of ["one", "two", "three"]) {
      const res = await generate(b.url, { prompt }, { headers: auth, from: from() });
      assert.equal(res.status, 200, res.text);
      made.push(res.json as { id: string; url: string });
    }
    const cli = await runScript(a, "images", ["delete", made[0].id]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(await objectOf(made[0].url), null);

    const revoked = await call(a.url, `/api/admin/keys/${id}/revoke?delete_images=true`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.json.images_deleted, 2);
    for (const image of made) {
      assert.equal(await objectOf(image.url), null);
      assert.equal((await call(b.url, new URL(image.url).pathname)).status, 404);
    }
  });

  it("with PUBLIC_CDN_URL the URLs point at the public bucket, and resolve there", async () => {
    // Swift serves a public-read container to anonymous readers at its own path: the "public bucket" URL.
    await client.send(new PutBucketAclCommand({ Bucket: BUCKET, ACL: "public-read" }));
    const publicBase = `${swift.endpoint}/v1/AUTH_test/${BUCKET}/app`;
    const c = await startApp({ name: "s3-c", env: { ...env, PUBLIC_CDN_URL: publicBase } });
    try {
      const res = await generate(c.url, { prompt: "public", output_format: "jpeg" }, { from: from() });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.url, new RegExp(`^${publicBase}/[a-f0-9]{32}\\.jpg$`));
      const fetched = await fetch(res.json.url);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.headers.get("content-type"), "image/jpeg");
      const viaApp = await call(a.url, new URL(res.json.url).pathname.replace(/^.*\//, "/cdn/"));
      assert.ok(Buffer.from(await fetched.arrayBuffer()).equals(viaApp.body), "the bucket and /cdn agree");
    } finally {
      await c.stop();
    }
  });

  it("the bucket going away: 503 busy with the unit back, degraded status, not ready; then recovery", async () => {
    const ipAddr = from();
    const made = await generate(a.url, { prompt: "before the outage" }, { from: ipAddr });
    assert.equal(made.status, 200, made.text);
    const usage = (await call(a.url, "/api/status", { headers: BROWSER, from: ipAddr })).json.usage_today;
    await swift.stopProxy();
    try {
      const res = await generate(a.url, { prompt: "during the outage" }, { from: ipAddr });
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.error.code, "busy");
      assert.ok(Number(res.headers["retry-after"]) > 0);
      const cdn = await call(b.url, new URL(made.json.url).pathname);
      assert.equal(cdn.status, 503);
      assert.equal(cdn.json.error.code, "busy");
      assert.equal(cdn.headers["cache-control"], "no-store");
      const status = await call(b.url, "/api/status", { headers: BROWSER, from: ipAddr });
      assert.equal(status.json.status, "degraded");
      assert.ok(
        status.json.degraded_reasons.some((r: string) => r.startsWith("The image storage does not answer")),
        status.text,
      );
      assert.equal(status.json.usage_today, usage, "the failed generation gave its unit back");
      const ready = await call(a.url, "/api/ready");
      assert.equal(ready.status, 503);
      assert.ok(ready.json.reasons.some((r: string) => r.startsWith("The image storage does not answer")));
    } finally {
      await swift.startProxy();
    }
    const again = await generate(b.url, { prompt: "after the outage" }, { from: ipAddr });
    assert.equal(again.status, 200, again.text);
    assert.equal((await call(a.url, new URL(made.json.url).pathname)).status, 200);
    assert.equal((await call(a.url, "/api/ready")).status, 200);
    // Status caches the storage's health for a few seconds.
    await new Promise((r) => setTimeout(r, 5_500));
    const status = await call(b.url, "/api/status", { headers: BROWSER, from: from() });
    assert.equal(status.json.status, "ok", status.text);
  });

  it("a wrong secret is a clear start-up and readiness error", async () => {
    const bad = await startApp({ name: "s3-bad", env: { ...env, AWS_SECRET_ACCESS_KEY: "wrong" } });
    try {
      const ready = await call(bad.url, "/api/ready");
      assert.equal(ready.status, 503);
      assert.ok(
        ready.json.reasons.some((r: string) => r.includes("AWS_SECRET_ACCESS_KEY")),
        JSON.stringify(ready.json),
      );
      const said = /image storage \(s3\) cannot be used: .*AWS_SECRET_ACCESS_KEY/;
      for (let i = 0; i < 50 && !said.test(bad.logs()); i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(bad.logs(), said);
      const res = await generate(bad.url, { prompt: "with a wrong secret" }, { from: from() });
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.error.code, "busy");
    } finally {
      await bad.stop();
    }
  });
});
