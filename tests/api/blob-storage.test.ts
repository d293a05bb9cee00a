// Vercel Blob storage against a local server speaking the Blob API: the returned URL must serve the same PNG.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import { BlobAccessError } from "@vercel/blob";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import { type FakeBlobServer, startFakeBlobServer } from "@/tests/helpers/fake-blob-server";
import { TINY_PNG as PNG, readAll, runStorageSuite } from "@/tests/helpers/storage-suite";

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

runStorageSuite("vercel-blob", async () => createVercelBlobStorage({ token: server.token }), {
  missingId: `darkroom/${"0".repeat(32)}-missing.png`,
  foreignIds: [crypto.randomBytes(16).toString("hex"), "../etc/passwd", "https://example.com/x.png", ""],
});

describe("vercel blob storage", () => {
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

  it("never fetches a caller-supplied URL when opening", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const stored = await storage.putPng(PNG, "");
    assert.equal(await storage.openPng(stored.url), null);
    const opened = await storage.openPng(stored.id);
    assert.ok(opened);
    assert.deepEqual(await readAll(opened.stream), PNG);
  });

  it("deletes through the API: the blob URL answers 404 afterwards", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const stored = await storage.putPng(PNG, "");
    await storage.deletePng(stored.id);
    assert.equal((await fetch(stored.url)).status, 404);
  });

  it("refuses a wrong token", async () => {
    const storage = createVercelBlobStorage({ token: "vercel_blob_rw_fakestore_wrong" });
    const err = await storage.putPng(PNG, "").catch((e: unknown) => e);
    assert.ok(err instanceof BlobAccessError, `got ${String(err)}`);
  });
});
