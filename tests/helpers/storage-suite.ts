// One contract suite for every ImageStorage backend: put, open (streamed), delete.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
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
  });
}
