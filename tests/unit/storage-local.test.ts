// Local image storage: the shared contract, and reads that stream in bounded chunks.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import nodeFs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CHUNK_BYTES } from "@/lib/storage/file-stream";
import { createLocalStorage, type StorageFs } from "@/lib/storage/local";
import { readAll, runStorageSuite, TINY_PNG } from "@/tests/helpers/storage-suite";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-storage-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function freshDataDir(): string {
  const dir = path.join(root, `data-${++dirs}`);
  fs.mkdirSync(dir);
  return dir;
}
const newId = () => crypto.randomBytes(16).toString("hex");

runStorageSuite("local", async () => createLocalStorage(freshDataDir(), undefined), {
  missingId: newId(),
  foreignIds: [`darkroom/${newId()}-abc.png`, "../key-pepper", "../../etc/passwd", `${newId()}.png`, ""],
});

/** The real file system, counting the bytes read through file handles, and optionally failing reads. */
function recordingFs(fault?: { op: "read"; code: string }) {
  let bytesRead = 0;
  const wrap = (handle: nodeFs.FileHandle): nodeFs.FileHandle =>
    new Proxy(handle, {
      get(h, prop) {
        if (prop === "read") {
          return async (...args: Parameters<nodeFs.FileHandle["read"]>) => {
            if (fault) throw Object.assign(new Error(`${fault.code}: injected, read`), { code: fault.code });
            const out = await (h.read as (...a: unknown[]) => ReturnType<nodeFs.FileHandle["read"]>)(...args);
            bytesRead += out.bytesRead;
            return out;
          };
        }
        const value = Reflect.get(h, prop, h);
        return typeof value === "function" ? value.bind(h) : value;
      },
    });
  const fsDouble: StorageFs = {
    ...nodeFs,
    open: (async (target: string, flags?: string, mode?: number) =>
      wrap(await nodeFs.open(target, flags, mode))) as StorageFs["open"],
  };
  return { fs: fsDouble, bytesRead: () => bytesRead };
}

describe("local storage: reads", () => {
  it("streams in bounded chunks, reading from disk only as the consumer pulls", async () => {
    const dataDir = freshDataDir();
    const rec = recordingFs();
    const storage = createLocalStorage(dataDir, undefined, { fs: rec.fs });
    const size = 40 * CHUNK_BYTES + 17;
    const bytes = crypto.randomBytes(size);
    const stored = await storage.putPng(bytes, "http://app.test");

    const opened = await storage.openPng(stored.id);
    assert.ok(opened);
    assert.equal(opened.size, size);
    const reader = opened.stream.getReader();
    const first = await reader.read();
    assert.ok(first.value && first.value.length <= CHUNK_BYTES);
    // Give an eager implementation every chance to read ahead.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.ok(rec.bytesRead() <= 2 * CHUNK_BYTES, `read ${rec.bytesRead()} bytes for one chunk`);

    const chunks = [first.value];
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      assert.ok(r.value.length <= CHUNK_BYTES);
      chunks.push(r.value);
    }
    assert.ok(Buffer.concat(chunks).equals(bytes));
    assert.equal(rec.bytesRead(), size);
  });

  it("closes the file when a stream is cancelled or read to the end", async () => {
    const storage = createLocalStorage(freshDataDir(), undefined);
    const stored = await storage.putPng(Buffer.alloc(3 * CHUNK_BYTES, 1), "http://app.test");
    const openFds = () => fs.readdirSync("/proc/self/fd").length;
    const before = openFds();
    for (let i = 0; i < 30; i++) {
      const opened = await storage.openPng(stored.id);
      assert.ok(opened);
      if (i % 2) await opened.stream.cancel();
      else await readAll(opened.stream);
    }
    assert.ok(openFds() <= before + 2, `${openFds() - before} file descriptors left open`);
  });

  it("fails the stream, and closes the file, when a read fails", async () => {
    const dataDir = freshDataDir();
    const stored = await createLocalStorage(dataDir, undefined).putPng(TINY_PNG, "http://app.test");
    const broken = createLocalStorage(dataDir, undefined, { fs: recordingFs({ op: "read", code: "EIO" }).fs });
    const opened = await broken.openPng(stored.id);
    assert.ok(opened);
    await assert.rejects(readAll(opened.stream), /EIO/);
  });
});
