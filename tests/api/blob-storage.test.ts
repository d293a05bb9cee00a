// Vercel Blob storage against a local server speaking the Blob API: the returned URL must serve the same PNG, and
// outages of the service become StorageUnavailable, quickly.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import net from "node:net";
import { after, afterEach, before, describe, it } from "node:test";
import { BlobAccessError } from "@vercel/blob";
import { StorageUnavailable } from "@/lib/errors";
import { createVercelBlobStorage } from "@/lib/storage/vercel-blob";
import { freePort } from "@/tests/helpers/app";
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
  afterEach(() => {
    server.failApi(null);
    server.hangApi(false);
  });

  it("puts a public, immutable PNG whose URL serves the same bytes", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    assert.equal(storage.kind, "vercel-blob");
    const stored = await storage.put(PNG, "http://app.invalid");

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
    const stored = await storage.put(PNG, "");
    assert.equal(await storage.open(stored.url), null);
    const opened = await storage.open(stored.id);
    assert.ok(opened);
    assert.deepEqual(await readAll(opened.stream), PNG);
  });

  it("deletes through the API: the blob URL answers 404 afterwards", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const stored = await storage.put(PNG, "");
    await storage.delete(stored.id);
    assert.equal((await fetch(stored.url)).status, 404);
  });

  // The Blob API's error answers (status and error.code), as @vercel/blob maps them.
  const outages = [
    { name: "service unavailable", fault: { status: 503, code: "service_unavailable" } },
    { name: "an internal error", fault: { status: 500, code: "internal_server_error" } },
    { name: "a gateway error", fault: { status: 502, code: "bad_gateway" } },
    { name: "rate limiting", fault: { status: 429, code: "rate_limited", headers: { "retry-after": "7" } } },
    { name: "a store suspended (over its plan's limits)", fault: { status: 403, code: "store_suspended" } },
  ];
  for (const { name, fault } of outages) {
    it(`put: ${name} is StorageUnavailable, and nothing is stored`, async () => {
      const storage = createVercelBlobStorage({ token: server.token });
      const before = server.count();
      server.failApi(fault);
      await assert.rejects(storage.put(PNG, ""), StorageUnavailable);
      assert.equal(server.count(), before);
    });
  }

  it("put: an unreachable service is StorageUnavailable", async () => {
    const port = await freePort();
    process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${port}/api`;
    try {
      const storage = createVercelBlobStorage({ token: server.token });
      await assert.rejects(storage.put(PNG, ""), StorageUnavailable);
    } finally {
      process.env.VERCEL_BLOB_API_URL = server.apiUrl;
    }
  });

  it("put: a connection reset mid-request is StorageUnavailable", async () => {
    const rude = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => rude.listen(0, "127.0.0.1", resolve));
    process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${(rude.address() as net.AddressInfo).port}/api`;
    try {
      const storage = createVercelBlobStorage({ token: server.token });
      await assert.rejects(storage.put(PNG, ""), StorageUnavailable);
    } finally {
      process.env.VERCEL_BLOB_API_URL = server.apiUrl;
      await new Promise<void>((resolve) => rude.close(() => resolve()));
    }
  });

  it("put: a service that does not answer is StorageUnavailable at the deadline, retries included", async () => {
    // The client's default: 10 retries with exponential backoff, which alone would take minutes.
    delete process.env.VERCEL_BLOB_RETRIES;
    try {
      const storage = createVercelBlobStorage({ token: server.token, deadlineMs: 600 });
      server.hangApi(true);
      const started = Date.now();
      await assert.rejects(storage.put(PNG, ""), StorageUnavailable);
      const took = Date.now() - started;
      assert.ok(took < 5_000, `took ${took} ms`);

      server.hangApi(false);
      server.failApi({ status: 503, code: "service_unavailable" });
      await assert.rejects(storage.put(PNG, ""), StorageUnavailable);
    } finally {
      process.env.VERCEL_BLOB_RETRIES = "0";
    }
  });

  it("open and delete: outages are StorageUnavailable too", async () => {
    const storage = createVercelBlobStorage({ token: server.token });
    const stored = await storage.put(PNG, "");
    server.failApi({ status: 503, code: "service_unavailable" });
    await assert.rejects(storage.open(stored.id), StorageUnavailable);
    await assert.rejects(storage.delete(stored.id), StorageUnavailable);
  });

  it("a wrong token is a configuration error, not an outage", async () => {
    const storage = createVercelBlobStorage({ token: "vercel_blob_rw_fakestore_wrong" });
    const err = await storage.put(PNG, "").catch((e: unknown) => e);
    assert.ok(err instanceof BlobAccessError, `got ${String(err)}`);
    assert.ok(!(err instanceof StorageUnavailable));
  });
});
