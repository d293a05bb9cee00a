// What /cdn answers, from the shared reply both server.ts and the Next route send: status, headers, body.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { replyWithImage } from "@/app/cdn/serve-image";
import { StorageUnavailable } from "@/lib/errors";
import { createLocalStorage } from "@/lib/storage/local";
import { readAll, TINY_PNG } from "@/tests/helpers/storage-suite";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-serve-"));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const storage = createLocalStorage(dataDir, undefined);
const openFds = () => fs.readdirSync("/proc/self/fd").length;

describe("replyWithImage", () => {
  it("a storage that does not answer: 503 busy with Retry-After, never cached, for GET and HEAD", async () => {
    const down = {
      ...storage,
      open: async () => {
        throw new StorageUnavailable("image storage cannot be reached");
      },
    };
    const file = `${crypto.randomBytes(16).toString("hex")}.webp`;
    const get = await replyWithImage(down, file, { method: "GET", ifNoneMatch: null });
    assert.equal(get.status, 503);
    assert.equal(get.headers["Cache-Control"], "no-store");
    assert.ok(Number(get.headers["Retry-After"]) > 0);
    assert.equal(JSON.parse(String(get.body)).error.code, "busy");
    assert.doesNotMatch(String(get.body), /cannot be reached/, "the storage's own words stay in the log");
    const head = await replyWithImage(down, file, { method: "HEAD", ifNoneMatch: null });
    assert.equal(head.status, 503);
    assert.equal(head.body, null);
  });

  it("GET: the image streamed, with its length and the immutable, sandboxed headers", async () => {
    const { id } = await storage.put(TINY_PNG, "http://app.test");
    const reply = await replyWithImage(storage, `${id}.png`, { method: "GET", ifNoneMatch: null });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.headers, {
      "Cache-Control": "public, max-age=31536000, immutable",
      ETag: `"${id}"`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Content-Type": "image/png",
      "Content-Length": String(TINY_PNG.length),
    });
    assert.ok(reply.body instanceof ReadableStream);
    assert.deepEqual(await readAll(reply.body), TINY_PNG);
  });

  it("If-None-Match: 304 for the image's tag (strong, weak, listed or *), 200 otherwise", async () => {
    const { id } = await storage.put(TINY_PNG, "http://app.test");
    for (const inm of [`"${id}"`, ` W/"${id}" `, `"a", "${id}"`, "*"]) {
      const reply = await replyWithImage(storage, `${id}.png`, { method: "GET", ifNoneMatch: inm });
      assert.equal(reply.status, 304, inm);
      assert.equal(reply.body, null);
      assert.equal(reply.headers.ETag, `"${id}"`);
      assert.equal(reply.headers["Content-Length"], undefined);
    }
    for (const inm of [`"${id.slice(1)}"`, id, `"${crypto.randomBytes(16).toString("hex")}"`]) {
      const reply = await replyWithImage(storage, `${id}.png`, { method: "GET", ifNoneMatch: inm });
      assert.equal(reply.status, 200, inm);
      await (reply.body as ReadableStream).cancel();
    }
  });

  it("HEAD: the headers of GET, no body, and the file is not left open", async () => {
    const { id } = await storage.put(TINY_PNG, "http://app.test");
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      const reply = await replyWithImage(storage, `${id}.png`, {
        method: "HEAD",
        ifNoneMatch: i % 2 ? `"${id}"` : null,
      });
      assert.equal(reply.status, i % 2 ? 304 : 200);
      assert.equal(reply.body, null);
    }
    assert.ok(openFds() <= before + 2, "file descriptors leaked");
    const head = await replyWithImage(storage, `${id}.png`, { method: "HEAD", ifNoneMatch: null });
    assert.equal(head.headers["Content-Length"], String(TINY_PNG.length));
  });

  it("404 for missing, deleted or malformed names, whatever If-None-Match says", async () => {
    const { id } = await storage.put(TINY_PNG, "http://app.test");
    await storage.delete(id);
    for (const file of [`${id}.png`, id, `${id}.PNG`, "..%2Fkey-pepper", "key-pepper", `${id}.png.tmp`]) {
      const get = await replyWithImage(storage, file, { method: "GET", ifNoneMatch: `"${id}"` });
      assert.equal(get.status, 404, file);
      assert.equal(get.headers["Cache-Control"], "no-store");
      assert.equal(JSON.parse(get.body as string).error.code, "not_found");
      const head = await replyWithImage(storage, file, { method: "HEAD", ifNoneMatch: null });
      assert.equal(head.status, 404);
      assert.equal(head.body, null);
    }
  });
});
