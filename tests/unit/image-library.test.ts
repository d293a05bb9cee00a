// The image library on real parts (SQLite records, local files): a record only with its file, deletion record first
// then file, the retention sweep (due only, bounded, one deleter per image), and the scheduler.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { NotFound, StorageUnavailable, StoreUnavailable } from "@/lib/errors";
import { deleteImage, deleteImagesOf, dueAt, effectiveExpiry, listImages, storeImage } from "@/lib/images/library";
import { hashDeleteToken, imageOwnerOf } from "@/lib/images/owner";
import { startImageSweeps } from "@/lib/images/scheduler";
import type { ImageStore } from "@/lib/images/store";
import { createSweepStats, sweepImages } from "@/lib/images/sweep";
import { createLocalStorage } from "@/lib/storage/local";
import type { ImageStorage } from "@/lib/storage/types";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { TINY_PNG } from "@/tests/helpers/storage-suite";

const DAY_MS = 86_400_000;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-library-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function setUp() {
  const dir = fs.mkdtempSync(path.join(root, "d-"));
  const storage = createLocalStorage(dir, undefined);
  const images = openSqliteBackend(dir).images;
  const files = () => fs.readdirSync(path.join(dir, "images")).filter((n) => n.endsWith(".png"));
  return { dir, storage, images, files };
}

/** Storage that counts deletions per id, and can be told to fail them. */
function countingStorage(inner: ImageStorage) {
  const deletes = new Map<string, number>();
  let failDeletes = false;
  const storage: ImageStorage = {
    ...inner,
    async delete(id) {
      if (failDeletes) throw new StorageUnavailable("blob down");
      deletes.set(id, (deletes.get(id) ?? 0) + 1);
      await inner.delete(id);
    },
  };
  return {
    storage,
    deletes,
    failDeletes: (on: boolean) => {
      failDeletes = on;
    },
  };
}

const generateParams = { prompt: "a cat", model: "alpha-pro", style: "Anime", ratio: "1:1", seed: 7 };
const put = (storage: ImageStorage, images: ImageStore, owner = "key_a", retentionDays = 30) =>
  storeImage(
    storage,
    TINY_PNG,
    "http://app.invalid",
    { kind: "generate", params: generateParams, width: 1, height: 1 },
    { images, owner, retentionDays },
  );

describe("image owners", () => {
  it("are the key id for Pro, and a keyed hash of the identity for Free", () => {
    assert.equal(imageOwnerOf({ keyId: "key_abc", identity: "key:key_abc" }, "pepper"), "key_abc");
    const free = imageOwnerOf({ identity: "ip:127.0.0.1" }, "pepper-one");
    assert.match(free, /^free_[a-f0-9]{32}$/);
    assert.ok(!free.includes("127"));
    assert.equal(imageOwnerOf({ identity: "ip:127.0.0.1" }, "pepper-one"), free);
    assert.notEqual(imageOwnerOf({ identity: "ip:127.0.0.1" }, "pepper-two"), free, "keyed by the pepper");
    assert.notEqual(imageOwnerOf({ identity: "ip:127.0.0.2" }, "pepper-one"), free);
  });
});

describe("storing an image", () => {
  it("writes the file, then a record with the request's fields, expiry and the token's hash", async () => {
    const { storage, images, files } = setUp();
    const before = Date.now();
    const stored = await put(storage, images, "key_a", 1.5);
    assert.match(stored.deleteToken, /^dt_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(files(), [`${stored.id}.png`]);
    const [record] = (await listImages("key_a", { limit: 10 }, { images, retentionDays: 1.5 })).records;
    assert.equal(record.id, stored.id);
    assert.equal(record.url, stored.url);
    assert.deepEqual(record.params, generateParams);
    assert.equal(record.bytes, TINY_PNG.length);
    assert.equal(record.deleteTokenHash, hashDeleteToken(stored.deleteToken));
    assert.ok(record.createdAt >= before && record.createdAt <= Date.now());
    assert.equal(record.expiresAt, record.createdAt + 1.5 * DAY_MS);
    assert.equal(stored.expiresAt, new Date(record.expiresAt).toISOString());
  });

  it("keeps images forever at retention 0", async () => {
    const { storage, images } = setUp();
    const stored = await put(storage, images, "key_a", 0);
    assert.equal(stored.expiresAt, null);
  });

  it("removes the file again when the record cannot be written, and fails with the store's error", async () => {
    const { storage, images, files } = setUp();
    const broken: ImageStore = {
      ...images,
      insert: async () => {
        throw new StoreUnavailable("sqlite: full");
      },
    };
    await assert.rejects(put(storage, broken), StoreUnavailable);
    assert.deepEqual(files(), []);
  });

  it("writes no record when the file cannot be stored", async () => {
    const { storage, images } = setUp();
    const full: ImageStorage = {
      ...storage,
      put: async () => {
        throw new StorageUnavailable("image storage: ENOSPC");
      },
    };
    await assert.rejects(put(full, images), StorageUnavailable);
    assert.equal(await images.count(), 0);
  });
});

describe("deleting an image", () => {
  it("by token or by owner removes file and record; anyone else gets NotFound", async () => {
    const { storage, images, files } = setUp();
    const deps = { images, storage, retentionDays: 30 };
    const one = await put(storage, images, "key_a");
    const two = await put(storage, images, "key_a");

    await assert.rejects(deleteImage(one.id, { owner: "key_b" }, deps), NotFound);
    await assert.rejects(deleteImage(one.id, { deleteToken: two.deleteToken }, deps), NotFound);
    await assert.rejects(deleteImage(one.id, { deleteToken: `${one.deleteToken}x` }, deps), NotFound);
    await assert.rejects(deleteImage(one.id, {}, deps), NotFound);
    assert.equal(files().length, 2);

    await deleteImage(one.id, { deleteToken: one.deleteToken }, deps);
    assert.equal(await storage.open(one.id), null, "the file is gone when delete returns");
    await assert.rejects(deleteImage(one.id, { deleteToken: one.deleteToken }, deps), NotFound);

    await deleteImage(two.id, { owner: "key_a" }, deps);
    assert.deepEqual(files(), []);
    assert.equal(await images.count(), 0);
  });

  it("hands the claim back when the file cannot be removed, so a retry works", async () => {
    const { storage, images } = setUp();
    const counting = countingStorage(storage);
    const deps = { images, storage: counting.storage, retentionDays: 30 };
    const one = await put(storage, images, "key_a");
    counting.failDeletes(true);
    await assert.rejects(deleteImage(one.id, { owner: "key_a" }, deps), StorageUnavailable);
    // Its deletion was asked for: it is no longer listed, and its file is still there.
    assert.deepEqual((await listImages("key_a", { limit: 10 }, deps)).records, []);
    const still = await storage.open(one.id);
    assert.ok(still, "the file stays until a delete succeeds");
    await still.stream.cancel();
    counting.failDeletes(false);
    await deleteImage(one.id, { owner: "key_a" }, deps);
    assert.equal(await images.count(), 0);
  });

  it("deletes all of an owner's images and nobody else's", async () => {
    const { storage, images, files } = setUp();
    const deps = { images, storage, retentionDays: 30 };
    for (let i = 0; i < 7; i++) await put(storage, images, "key_gone");
    const kept = await put(storage, images, "key_kept");
    assert.deepEqual(await deleteImagesOf("key_gone", deps, { batch: 3 }), { removed: 7, failed: 0 });
    assert.deepEqual(files(), [`${kept.id}.png`]);
    assert.equal(await images.count(), 1);
  });
});

describe("retention", () => {
  it("computes the effective expiry under a shortened or lifted retention", () => {
    const r = { createdAt: 1_000_000, expiresAt: 1_000_000 + 30 * DAY_MS };
    assert.equal(effectiveExpiry(r, 30), r.expiresAt);
    assert.equal(effectiveExpiry(r, 1), 1_000_000 + DAY_MS);
    assert.equal(effectiveExpiry(r, 0), r.expiresAt, "0 now keeps new images forever, not ones already dated");
    assert.equal(effectiveExpiry({ createdAt: 5, expiresAt: null }, 0), null);
    assert.deepEqual(dueAt(100 * DAY_MS, 0.5), { now: 100 * DAY_MS, cutoff: 99.5 * DAY_MS });
    assert.deepEqual(dueAt(5, 0), { now: 5, cutoff: null });
  });

  it("sweeps only what is due, in bounded runs", async () => {
    const { storage, images, files } = setUp();
    const counting = countingStorage(storage);
    const sweepStats = createSweepStats();
    const deps = { images, storage: counting.storage, retentionDays: 1, sweepStats };
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await put(storage, images, "key_a", 1));
    const now = Date.now();

    assert.equal((await sweepImages(deps, { now: () => now + DAY_MS - 60_000 })).removed, 0, "nothing early");
    assert.equal(files().length, 12);

    const first = await sweepImages(deps, { now: () => now + DAY_MS + 1000, batch: 4, maxPerRun: 8 });
    assert.deepEqual([first.removed, first.more], [8, true]);
    const second = await sweepImages(deps, { now: () => now + DAY_MS + 1000, batch: 4, maxPerRun: 8 });
    assert.deepEqual([second.removed, second.more], [4, false]);
    assert.deepEqual(files(), []);
    assert.equal(await images.count(), 0);
    assert.ok([...counting.deletes.values()].every((n) => n === 1));
    assert.equal(counting.deletes.size, 12);
    assert.deepEqual([sweepStats.runs, sweepStats.totalRemoved, sweepStats.lastRemoved], [3, 12, 4]);
  });

  it("removes images older than a shortened retention, though their own expiry is later", async () => {
    const { storage, images, files } = setUp();
    const kept = await put(storage, images, "key_a", 30);
    const now = Date.now();
    assert.equal((await sweepImages({ images, storage, retentionDays: 30 }, { now: () => now + DAY_MS })).removed, 0);
    assert.equal((await sweepImages({ images, storage, retentionDays: 0.5 }, { now: () => now + DAY_MS })).removed, 1);
    assert.ok(!files().includes(`${kept.id}.png`));
  });

  it("leaves files that would not go for the next run, and then removes them", async () => {
    const { storage, images } = setUp();
    const counting = countingStorage(storage);
    const deps = { images, storage: counting.storage, retentionDays: 1 };
    for (let i = 0; i < 3; i++) await put(storage, images, "key_a", 1);
    const later = Date.now() + 2 * DAY_MS;
    counting.failDeletes(true);
    assert.deepEqual((await sweepImages(deps, { now: () => later })).failed, 3);
    counting.failDeletes(false);
    assert.equal((await sweepImages(deps, { now: () => later })).removed, 3);
    assert.equal(await images.count(), 0);
  });

  it("two sweepers on two connections delete each image once", async () => {
    const { dir, storage, images, files } = setUp();
    for (let i = 0; i < 60; i++) await put(storage, images, `key_${i % 3}`, 1);
    const counting = countingStorage(storage);
    const otherBackend = openSqliteBackend(dir);
    const other = otherBackend.images;
    const later = () => Date.now() + 2 * DAY_MS;
    const results = await Promise.all([
      sweepImages({ images, storage: counting.storage, retentionDays: 1 }, { now: later, batch: 5 }),
      sweepImages({ images: other, storage: counting.storage, retentionDays: 1 }, { now: later, batch: 5 }),
    ]);
    assert.equal(results[0].removed + results[1].removed, 60);
    assert.equal(counting.deletes.size, 60);
    assert.ok(
      [...counting.deletes.values()].every((n) => n === 1),
      "no file was deleted twice",
    );
    assert.deepEqual(files(), []);
    await otherBackend.close();
  });
});

describe("the sweep scheduler", () => {
  it("runs at once, again soon while a run left work, then at the interval; stops cleanly", async () => {
    const runs: number[] = [];
    const started = Date.now();
    const scheduler = startImageSweeps(
      async () => {
        runs.push(Date.now() - started);
        return { removed: 0, failed: 0, more: runs.length < 3, ms: 0 };
      },
      { everyMs: 10_000, againMs: 20 },
    );
    await new Promise((r) => setTimeout(r, 400));
    await scheduler.stop();
    assert.equal(runs.length, 3, `runs at ${runs.join(", ")} ms`);
    assert.ok(runs[0] < 50, "the first run is at start");
  });

  it("keeps going after a failed run", async () => {
    let calls = 0;
    const scheduler = startImageSweeps(
      async () => {
        calls++;
        throw new StoreUnavailable("down");
      },
      { everyMs: 20 },
    );
    await new Promise((r) => setTimeout(r, 300));
    await scheduler.stop();
    assert.ok(calls >= 3, `${calls} calls`);
  });
});
