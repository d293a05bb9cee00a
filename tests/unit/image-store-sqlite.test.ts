// The shared ImageStore suite on SQLite, plus what is SQLite's own: two connections (two processes' worth) claiming
// from one file at once never share a record.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { ImageRecord } from "@/lib/images/store";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { runImageStoreSuite } from "@/tests/helpers/image-store-suite";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-images-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const freshDir = () => fs.mkdtempSync(path.join(root, "db-"));

runImageStoreSuite("sqlite", async () => openSqliteBackend(freshDir()).images);

describe("sqlite image store", () => {
  it("two connections sweeping one file claim each due record once", async () => {
    const dir = freshDir();
    const [a, b] = [openSqliteBackend(dir), openSqliteBackend(dir)];
    const [one, two] = [a.images, b.images];
    const now = Date.now();
    const records: ImageRecord[] = Array.from({ length: 400 }, (_, i) => ({
      id: crypto.randomBytes(16).toString("hex"),
      owner: "key_x",
      kind: "enhance",
      url: "http://cdn.invalid/x.png",
      params: { strength: 0.5, scale: 2, model: "fast", originalWidth: 10, originalHeight: 10 },
      width: 20,
      height: 20,
      bytes: 100,
      createdAt: now - 1000 + i,
      expiresAt: now - 10,
      deleteTokenHash: "h",
    }));
    for (const r of records) await one.insert(r);
    const claimed: string[] = [];
    const sweep = async (store: typeof one) => {
      for (;;) {
        const lease = { id: crypto.randomBytes(8).toString("hex"), now, until: now + 60_000 };
        const got = await store.claimDue(lease, { now, cutoff: null }, 25);
        if (got.length === 0) return;
        for (const r of got) {
          claimed.push(r.id);
          assert.equal(await store.finish(r, lease.id), true);
        }
      }
    };
    await Promise.all([sweep(one), sweep(two), sweep(one), sweep(two)]);
    assert.equal(claimed.length, records.length);
    assert.equal(new Set(claimed).size, records.length);
    assert.equal(await two.count(), 0);
    await a.close();
    await b.close();
  });
});
