// One contract suite for every ImageStorage backend: put, open (streamed), delete, every output format, a body over
// S3's 5 MiB part size, and the temporary area with its sweep.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { OUTPUT_FORMAT_NAMES, OUTPUT_FORMATS } from "@/lib/catalog/output-formats";
import { encodeOutput } from "@/lib/images/encode";
import type { ImageStorage } from "@/lib/storage/types";

// A valid 1×1 PNG.
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return Buffer.concat(chunks);
}

/**
 * `open` makes a storage; `foreignIds` are ids in another backend's shape or hostile ones, never served.
 * `missingId` has this backend's shape but was never stored.
 */
export function runStorageSuite(
  name: string,
  open: () => Promise<ImageStorage>,
  ids: { missingId: string; foreignIds: string[] },
): void {
  describe(`ImageStorage contract: ${name}`, () => {
    it("opens what it stored: the same bytes and their exact size", async () => {
      const storage = await open();
      const png = Buffer.concat([TINY_PNG, Buffer.alloc(200_000, 7)]);
      const stored = await storage.put(png, "http://app.test");
      const opened = await storage.open(stored.id);
      assert.ok(opened, "stored image not found");
      assert.equal(opened.size, png.length);
      assert.deepEqual(await readAll(opened.stream), png);
    });

    it("gives every image its own id and URL", async () => {
      const storage = await open();
      const [a, b] = await Promise.all([
        storage.put(TINY_PNG, "http://app.test"),
        storage.put(TINY_PNG, "http://app.test"),
      ]);
      assert.notEqual(a.id, b.id);
      assert.notEqual(a.url, b.url);
    });

    it("opens nothing for a missing, foreign or hostile id", async () => {
      const storage = await open();
      assert.equal(await storage.open(ids.missingId), null);
      for (const id of ids.foreignIds) assert.equal(await storage.open(id), null, id);
    });

    it("deletes: the image is gone, and deleting again or a foreign id is a no-op", async () => {
      const storage = await open();
      const keep = await storage.put(TINY_PNG, "http://app.test");
      const gone = await storage.put(TINY_PNG, "http://app.test");
      await storage.delete(gone.id);
      assert.equal(await storage.open(gone.id), null);
      await storage.delete(gone.id);
      await storage.delete(ids.missingId);
      for (const id of ids.foreignIds) await storage.delete(id);
      const kept = await storage.open(keep.id);
      assert.ok(kept, "deleting one image removed another");
      assert.deepEqual(await readAll(kept.stream), TINY_PNG);
    });

    it("round-trips every output format byte for byte, under a URL with the format's extension", async () => {
      const storage = await open();
      for (const format of OUTPUT_FORMAT_NAMES) {
        const bytes = await encodeOutput(TINY_PNG, { format, quality: 80 });
        const stored = await storage.put(bytes, "http://app.test", format);
        assert.ok(stored.url.endsWith(`.${OUTPUT_FORMATS[format].extension}`), stored.url);
        const opened = await storage.open(stored.id);
        assert.ok(opened, `${format} not found`);
        assert.equal(opened.size, bytes.length, format);
        assert.deepEqual(await readAll(opened.stream), bytes, format);
      }
    });

    it("stores an image over 5 MiB whole (S3 writes it in parts)", async () => {
      const storage = await open();
      const big = crypto.randomBytes(5 * 1024 * 1024 + 300_000);
      const stored = await storage.put(big, "http://app.test");
      const opened = await storage.open(stored.id);
      assert.ok(opened, "large image not found");
      assert.equal(opened.size, big.length);
      assert.ok((await readAll(opened.stream)).equals(big), "the large image came back different");
      await storage.delete(stored.id);
      assert.equal(await storage.open(stored.id), null);
    });

    it("keeps temporary objects by key apart from images, and the sweep removes only older ones", async () => {
      const storage = await open();
      const key = crypto.randomBytes(16).toString("hex");
      const other = crypto.randomBytes(16).toString("hex");
      const bytes = crypto.randomBytes(70_000);
      await storage.temp.put(key, bytes);
      await storage.temp.put(other, TINY_PNG);
      const opened = await storage.temp.open(key);
      assert.ok(opened, "temporary object not found");
      assert.equal(opened.size, bytes.length);
      assert.ok((await readAll(opened.stream)).equals(bytes));
      assert.equal(await storage.open(key), null, "a temporary key is not an image id");
      for (const bad of ["../x", "short", "", "a/b".repeat(10)]) {
        assert.equal(await storage.temp.open(bad), null, bad);
        await storage.temp.delete(bad);
        await assert.rejects(storage.temp.put(bad, TINY_PNG), bad);
      }
      await storage.temp.delete(other);
      assert.equal(await storage.temp.open(other), null);
      await storage.temp.delete(other);
      // Written just now: a sweep of what is older than an hour ago leaves it; one of what is older than now + 1 s
      // (every object so far) removes it.
      assert.equal(await storage.temp.sweep(Date.now() - 3_600_000), 0);
      assert.ok(await storage.temp.open(key).then((o) => o?.stream.cancel().then(() => true)), "swept too early");
      assert.equal(await storage.temp.sweep(Date.now() + 1000), 1);
      assert.equal(await storage.temp.open(key), null);
    });

    it("answers its check", async () => {
      await (await open()).check();
    });
  });
}
