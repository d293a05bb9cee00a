// Vercel Blob storage against a local server speaking the Blob API: the returned URL must serve the same PNG.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import { type FakeBlobServer, startFakeBlobServer } from "@/tests/helpers/fake-blob-server";

// A valid 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("vercel blob storage", () => {
  let server: FakeBlobServer;

  before(async () => {
    server = await startFakeBlobServer();
    // @vercel/blob reads these on every call.
    process.env.VERCEL_BLOB_API_URL = server.apiUrl;
    process.env.VERCEL_BLOB_RETRIES = "0";
  });
  after(async () => {
    delete process.env.VERCEL_BLOB_API_URL;
    delete process.env.VERCEL_BLOB_RETRIES;
    await server.close();
  });

  it("puts a public, immutable PNG whose URL serves the same bytes", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    assert.equal(storage.kind, "vercel-blob");
    const stored = await storage.putPng(PNG, "http://app.invalid");

    assert.match(stored.id, /^darkroom\/[0-9a-f]{32}-[A-Za-z0-9]+\.png$/);
    assert.equal(stored.url, `${new URL(server.apiUrl).origin}/${stored.id}`);

    const put = server.puts.at(-1);
    assert.equal(put?.headers.authorization, `Bearer ${server.token}`);
    assert.equal(put?.headers["x-vercel-blob-access"], "public");
    assert.equal(put?.headers["x-add-random-suffix"], "1");
    assert.equal(put?.headers["x-content-type"], "image/png");
    assert.equal(put?.headers["x-cache-control-max-age"], "31536000");
    assert.ok(put?.headers["x-api-version"]);

    const res = await fetch(stored.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.match(res.headers.get("cache-control") ?? "", /max-age=31536000/);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
  });

  it("gives every image its own name", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const [a, b] = await Promise.all([storage.putPng(PNG, ""), storage.putPng(PNG, "")]);
    assert.notEqual(a.url, b.url);
  });

  it("reads images back by id, and null when absent or not ours", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const stored = await storage.putPng(PNG, "");
    assert.deepEqual(await storage.readPng(stored.id), PNG);
    assert.equal(await storage.readPng(`darkroom/${"0".repeat(32)}-missing.png`), null);
    // Not one of our pathnames (a URL, a traversal): never fetched.
    assert.equal(await storage.readPng(stored.url), null);
    assert.equal(await storage.readPng("../etc/passwd"), null);
  });

  it("refuses a wrong token", async () => {
    const storage = createVercelBlobStorage({ token: "vercel_blob_rw_fakestore_wrong" });
    await assert.rejects(storage.putPng(PNG, ""));
  });
});
