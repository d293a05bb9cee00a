// Local image storage: the shared contract, durable writes, failures that leave nothing behind, the stale temp
// sweep, and reads that stream in bounded chunks.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import nodeFs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { StorageUnavailable } from "@/lib/errors";
import { CHUNK_BYTES } from "@/lib/storage/file-stream";
import { createLocalStorage, STALE_TEMP_MS, type StorageFs } from "@/lib/storage/local";
import { readAll, runStorageSuite, TINY_PNG } from "@/tests/helpers/storage-suite";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-storage-"));
const mountPoint = path.join(root, "tiny");
let mounted = false;
after(() => {
  if (mounted) spawnSync("umount", [mountPoint]);
  fs.rmSync(root, { recursive: true, force: true });
});

let dirs = 0;
function freshDataDir(): string {
  const dir = path.join(root, `data-${++dirs}`);
  fs.mkdirSync(dir);
  return dir;
}
const imagesOf = (dataDir: string) => path.join(dataDir, "images");
const listImages = (dataDir: string) => fs.readdirSync(imagesOf(dataDir)).sort();
const newId = () => crypto.randomBytes(16).toString("hex");

runStorageSuite("local", async () => createLocalStorage(freshDataDir(), undefined), {
  missingId: newId(),
  foreignIds: [`darkroom/${newId()}-abc.png`, "../key-pepper", "../../etc/passwd", `${newId()}.png`, ""],
});

function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall });
}

type Op = "write" | "sync" | "rename" | "syncDir" | "read";

/**
 * The real file system with a log of the calls that matter for durability, and an optional fault: the named
 * operation throws `code` (a write first writes half the bytes, as a disk that fills up mid-file does).
 */
function recordingFs(fault?: { op: Op; code: string }) {
  const calls: string[] = [];
  let bytesRead = 0;
  const fail = (op: Op) => {
    if (fault?.op === op) throw errnoError(fault.code, op);
  };
  const wrap = (handle: nodeFs.FileHandle, target: string): nodeFs.FileHandle => {
    const isDir = fs.statSync(target).isDirectory();
    const name = path.basename(target);
    return new Proxy(handle, {
      get(h, prop) {
        if (prop === "writeFile") {
          return async (data: Buffer) => {
            if (fault?.op === "write") {
              await h.write(data.subarray(0, data.length >> 1));
              fail("write");
            }
            await h.writeFile(data);
            calls.push(`write ${name}`);
          };
        }
        if (prop === "sync") {
          return async () => {
            fail(isDir ? "syncDir" : "sync");
            await h.sync();
            calls.push(`sync ${isDir ? "dir" : name}`);
          };
        }
        if (prop === "read") {
          return async (...args: Parameters<nodeFs.FileHandle["read"]>) => {
            fail("read");
            const out = await (h.read as (...a: unknown[]) => ReturnType<nodeFs.FileHandle["read"]>)(...args);
            bytesRead += out.bytesRead;
            return out;
          };
        }
        const value = Reflect.get(h, prop, h);
        return typeof value === "function" ? value.bind(h) : value;
      },
    });
  };
  const fsDouble: StorageFs = {
    ...nodeFs,
    open: (async (target: string, flags?: string, mode?: number) =>
      wrap(await nodeFs.open(target, flags, mode), target)) as StorageFs["open"],
    rename: async (from, to) => {
      fail("rename");
      await nodeFs.rename(from, to);
      calls.push(`rename ${path.basename(String(from))} -> ${path.basename(String(to))}`);
    },
  };
  return { fs: fsDouble, calls, bytesRead: () => bytesRead };
}

describe("local storage: writes", () => {
  it("returns URLs under the app's /cdn, or under PUBLIC_CDN_URL", async () => {
    const own = await createLocalStorage(freshDataDir(), undefined).put(TINY_PNG, "http://app.test:3000");
    assert.match(own.id, /^[a-f0-9]{32}$/);
    assert.equal(own.url, `http://app.test:3000/cdn/${own.id}.png`);
    const cdn = await createLocalStorage(freshDataDir(), "https://img.example.com/i").put(TINY_PNG, "http://x");
    assert.equal(cdn.url, `https://img.example.com/i/${cdn.id}.png`);
  });

  it("writes a temp file, syncs it, renames it, then syncs the folder, before returning", async () => {
    const dataDir = freshDataDir();
    const rec = recordingFs();
    const stored = await createLocalStorage(dataDir, undefined, { fs: rec.fs }).put(TINY_PNG, "http://app.test");
    const tmp = rec.calls[0]?.slice("write ".length) ?? "";
    assert.match(tmp, new RegExp(`^${stored.id}\\..+\\.tmp$`));
    assert.deepEqual(rec.calls, [`write ${tmp}`, `sync ${tmp}`, `rename ${tmp} -> ${stored.id}.png`, "sync dir"]);
    assert.deepEqual(listImages(dataDir), [`${stored.id}.png`]);
  });

  for (const code of ["ENOSPC", "EDQUOT", "EROFS"]) {
    for (const op of ["write", "sync", "rename"] as const) {
      it(`${code} on ${op}: StorageUnavailable, and no file is left behind`, async () => {
        const dataDir = freshDataDir();
        const storage = createLocalStorage(dataDir, undefined, { fs: recordingFs({ op, code }).fs });
        const err = await storage.put(Buffer.alloc(100_000, 1), "http://app.test").then(
          () => assert.fail("put succeeded"),
          (e: unknown) => e,
        );
        assert.ok(err instanceof StorageUnavailable, `got ${String(err)}`);
        assert.equal((err.cause as NodeJS.ErrnoException).code, code);
        assert.deepEqual(listImages(dataDir), []);
      });
    }
  }

  it("a failed folder sync gives no URL and removes the image it could not make durable", async () => {
    const dataDir = freshDataDir();
    const storage = createLocalStorage(dataDir, undefined, { fs: recordingFs({ op: "syncDir", code: "ENOSPC" }).fs });
    await assert.rejects(storage.put(TINY_PNG, "http://app.test"), StorageUnavailable);
    assert.deepEqual(listImages(dataDir), []);
  });

  it("other failures pass through unchanged (a bug or a broken disk is not 'busy'), still leaving nothing", async () => {
    const dataDir = freshDataDir();
    const storage = createLocalStorage(dataDir, undefined, { fs: recordingFs({ op: "write", code: "EIO" }).fs });
    const err = await storage.put(TINY_PNG, "http://app.test").catch((e: unknown) => e);
    assert.ok(!(err instanceof StorageUnavailable));
    assert.equal((err as NodeJS.ErrnoException).code, "EIO");
    assert.deepEqual(listImages(dataDir), []);
  });
});

describe("local storage: stale temp files", () => {
  const host = os.hostname().replace(/[^A-Za-z0-9-]/g, "_") || "host";
  const tempName = (h: string, pid: number, instance: string) => `${newId()}.${h}.${pid}.${instance}.tmp`;

  it("removes at creation what dead writers left, and keeps images and live writers' files", async () => {
    const dataDir = freshDataDir();
    const dir = imagesOf(dataDir);
    fs.mkdirSync(dir);
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    const hourAgo = new Date(Date.now() - 2 * STALE_TEMP_MS);
    const stale = [
      tempName(host, deadPid, "0a0b0c0d"), // this host, its process has exited
      tempName(host, process.pid, "00000000"), // an earlier process that had our pid (a restarted container)
      tempName("other-host", 4242, "0a0b0c0d"), // another host, long ago
      `${newId()}.png.${deadPid}.tmp`, // the previous naming, long ago
    ];
    const kept = [
      `${newId()}.png`,
      `${newId()}.png`,
      tempName(host, process.ppid, "0a0b0c0d"), // a live writer on this host
      tempName("other-host", 4242, "0e0e0e0e"), // another host, just now
      `${newId()}.png.${deadPid}.tmp`, // the previous naming, just now: cannot tell, so wait
    ];
    for (const name of [...stale, ...kept]) fs.writeFileSync(path.join(dir, name), "x");
    for (const name of [stale[2], stale[3]]) fs.utimesSync(path.join(dir, name), hourAgo, hourAgo);

    const storage = createLocalStorage(dataDir, undefined);
    const stored = await storage.put(TINY_PNG, "http://app.test");
    assert.deepEqual(listImages(dataDir), [...kept, `${stored.id}.png`].sort());
  });
});

describe("local storage: reads", () => {
  it("streams in bounded chunks, reading from disk only as the consumer pulls", async () => {
    const dataDir = freshDataDir();
    const rec = recordingFs();
    const storage = createLocalStorage(dataDir, undefined, { fs: rec.fs });
    const size = 40 * CHUNK_BYTES + 17;
    const bytes = crypto.randomBytes(size);
    const stored = await storage.put(bytes, "http://app.test");

    const opened = await storage.open(stored.id);
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
    const stored = await storage.put(Buffer.alloc(3 * CHUNK_BYTES, 1), "http://app.test");
    const openFds = () => fs.readdirSync("/proc/self/fd").length;
    const before = openFds();
    for (let i = 0; i < 30; i++) {
      const opened = await storage.open(stored.id);
      assert.ok(opened);
      if (i % 2) await opened.stream.cancel();
      else await readAll(opened.stream);
    }
    assert.ok(openFds() <= before + 2, `${openFds() - before} file descriptors left open`);
  });

  it("fails the stream, and closes the file, when a read fails", async () => {
    const dataDir = freshDataDir();
    const stored = await createLocalStorage(dataDir, undefined).put(TINY_PNG, "http://app.test");
    const broken = createLocalStorage(dataDir, undefined, { fs: recordingFs({ op: "read", code: "EIO" }).fs });
    const opened = await broken.open(stored.id);
    assert.ok(opened);
    await assert.rejects(readAll(opened.stream), /EIO/);
  });
});

/** A real 1 MiB tmpfs, when this process may mount one (root with CAP_SYS_ADMIN); else these tests are skipped. */
function mountTinyTmpfs(dir: string): string | false {
  fs.mkdirSync(dir);
  const probe = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", dir], { encoding: "utf8" });
  mounted = probe.status === 0;
  if (mounted) return false;
  return `cannot mount a tmpfs here (${(probe.stderr || probe.error?.message || "").trim() || "no permission"})`;
}

describe("local storage on a real, tiny file system", () => {
  const skip = mountTinyTmpfs(mountPoint);

  it("fills up: StorageUnavailable, no temp file, earlier images intact; room again after a delete", {
    skip,
  }, async () => {
    const storage = createLocalStorage(mountPoint, undefined);
    const first = await storage.put(crypto.randomBytes(400_000), "http://app.test");
    const second = await storage.put(crypto.randomBytes(400_000), "http://app.test");

    const err = await storage.put(crypto.randomBytes(400_000), "http://app.test").catch((e: unknown) => e);
    assert.ok(err instanceof StorageUnavailable, `got ${String(err)}`);
    assert.equal((err.cause as NodeJS.ErrnoException).code, "ENOSPC");
    assert.deepEqual(listImages(mountPoint), [`${first.id}.png`, `${second.id}.png`].sort());
    const opened = await storage.open(first.id);
    assert.equal(opened?.size, 400_000);
    await opened?.stream.cancel();

    await storage.delete(second.id);
    const third = await storage.put(crypto.randomBytes(400_000), "http://app.test");
    assert.deepEqual(listImages(mountPoint), [`${first.id}.png`, `${third.id}.png`].sort());
  });

  it("read-only: StorageUnavailable (EROFS), images still served", { skip }, async () => {
    const storage = createLocalStorage(mountPoint, undefined);
    const before = listImages(mountPoint);
    assert.equal(spawnSync("mount", ["-o", "remount,ro", mountPoint]).status, 0);
    try {
      const err = await storage.put(TINY_PNG, "http://app.test").catch((e: unknown) => e);
      assert.ok(err instanceof StorageUnavailable, `got ${String(err)}`);
      assert.equal((err.cause as NodeJS.ErrnoException).code, "EROFS");
      assert.deepEqual(listImages(mountPoint), before);
      const opened = await storage.open(before[0].replace(/\.png$/, ""));
      assert.ok(opened);
      await opened.stream.cancel();
    } finally {
      spawnSync("mount", ["-o", "remount,rw", mountPoint]);
    }
  });
});
