// Embedded image storage: files under DATA_DIR/images, served by GET /cdn/<id>.png.
import crypto from "node:crypto";
import nodeFs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { StorageUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { streamFile } from "./file-stream";
import { fileOfImageId, imageIdOf, isImageId, isTempKey, newImageFile } from "./names";
import type { ImageStorage, OpenedImage, TempArea } from "./types";

/** The file system calls local storage makes; tests pass a double that injects failures. */
export type StorageFs = Pick<typeof nodeFs, "mkdir" | "open" | "readdir" | "rename" | "rm" | "stat">;

/** Errors that mean "no room or not writable now": the caller may retry later, perhaps after a sweep. */
const NO_ROOM = new Set(["ENOSPC", "EDQUOT", "EROFS"]);

/** A temp file from another host (a shared volume) is only presumed dead after this long. */
export const STALE_TEMP_MS = 15 * 60_000;

/**
 * Tells this process's temp files from those of an earlier process that had the same pid (a restarted container).
 * Per module instance: the one storage of a process (the composition root's) writes and sweeps with the same one.
 */
const INSTANCE = crypto.randomBytes(4).toString("hex");
const HOST = os.hostname().replace(/[^A-Za-z0-9-]/g, "_") || "host";
/** <id>.<host>.<pid>.<instance>.tmp */
const TEMP_PATTERN = /^[a-f0-9]{32}\.([A-Za-z0-9_-]+)\.(\d+)\.([a-f0-9]{8})\.tmp$/;

export function createLocalStorage(
  dataDir: string,
  publicBase: string | undefined,
  opts: { fs?: StorageFs } = {},
): ImageStorage {
  const fs = opts.fs ?? nodeFs;
  const dir = path.join(dataDir, "images");
  const fileOf = (id: string) => path.join(/*turbopackIgnore: true*/ dir, fileOfImageId(id));
  // At creation: the folder, and the removal of what a crashed writer left behind. A failure is reported by the
  // put that awaits it, and the next put tries again.
  let ready: Promise<void> | undefined;
  const prepare = () => {
    if (ready) return ready;
    const attempt = fs.mkdir(dir, { recursive: true }).then(() => removeStaleTemps(fs, dir));
    ready = attempt;
    attempt.catch(() => {
      if (ready === attempt) ready = undefined;
    });
    return attempt;
  };
  void prepare();

  return {
    kind: "local",
    async put(bytes, origin, format = "png") {
      try {
        await prepare();
      } catch (err) {
        throw asStorageError(err);
      }
      const { name, file } = newImageFile(format);
      await writeDurably(fs, dir, name, file, bytes);
      return { id: imageIdOf(name, file, format), url: `${publicBase ?? `${origin}/cdn`}/${file}` };
    },
    async open(id) {
      return isImageId(id) ? openFile(fs, fileOf(id)) : null;
    },
    async delete(id) {
      if (!isImageId(id)) return;
      await fs.rm(fileOf(id), { force: true });
    },
    async check() {
      await prepare();
      await fs.stat(dir);
    },
    temp: createLocalTempArea(fs, path.join(dataDir, "temp-objects")),
  };
}

/** The temporary area: files named by their key in their own folder, swept by modification time. */
function createLocalTempArea(fs: StorageFs, dir: string): TempArea {
  const fileOf = (key: string) => path.join(/*turbopackIgnore: true*/ dir, key);
  return {
    async put(key, bytes) {
      if (!isTempKey(key)) throw new TypeError("invalid temporary key");
      try {
        await fs.mkdir(dir, { recursive: true });
      } catch (err) {
        throw asStorageError(err);
      }
      await writeDurably(fs, dir, key, key, bytes);
    },
    async open(key) {
      return isTempKey(key) ? openFile(fs, fileOf(key)) : null;
    },
    async delete(key) {
      if (isTempKey(key)) await fs.rm(fileOf(key), { force: true });
    },
    async sweep(before) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
        throw err;
      }
      let removed = 0;
      for (const name of names) {
        const file = path.join(dir, name);
        const stat = await fs.stat(file).catch(() => null);
        if (!stat || stat.mtimeMs >= before) continue;
        await fs.rm(file, { force: true });
        removed++;
      }
      return removed;
    },
  };
}

/** Opens a file for streaming; null when it is not there. */
async function openFile(fs: StorageFs, file: string): Promise<OpenedImage | null> {
  let handle: nodeFs.FileHandle;
  try {
    handle = await fs.open(file, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    return { size, stream: streamFile(handle, size) };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/**
 * Temp file, fsync, rename, fsync of the folder: once this returns the image survives a crash or power loss, and a
 * reader never sees half a file. On any failure the temp file is removed.
 */
async function writeDurably(fs: StorageFs, dir: string, name: string, fileName: string, png: Buffer): Promise<void> {
  const file = path.join(/*turbopackIgnore: true*/ dir, fileName);
  const tmp = path.join(dir, `${name}.${HOST}.${process.pid}.${INSTANCE}.tmp`);
  let handle: nodeFs.FileHandle | undefined;
  try {
    handle = await fs.open(tmp, "wx", 0o644);
    await handle.writeFile(png);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(tmp, file);
  } catch (err) {
    await handle?.close().catch(() => {});
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw asStorageError(err);
  }
  try {
    await syncDir(fs, dir);
  } catch (err) {
    // The rename may not be on disk, so the URL could dangle after a crash: give no URL at all.
    await fs.rm(file, { force: true }).catch(() => {});
    throw asStorageError(err);
  }
}

async function syncDir(fs: StorageFs, dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function asStorageError(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && NO_ROOM.has(code)) return new StorageUnavailable(`image storage: ${code}`, { cause: err });
  return err;
}

/**
 * Removes temp files whose writer is gone: on this host, a process that is no longer running (or an earlier one
 * that had our pid); from other hosts sharing the folder, anything older than STALE_TEMP_MS. Live writers' files
 * are left alone, so instances sharing DATA_DIR can start at any time.
 */
async function removeStaleTemps(fs: StorageFs, dir: string): Promise<void> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".tmp"));
  } catch (err) {
    // Leftovers only waste space; storing new images must not depend on sweeping them.
    log.warn("could not list temp images", describeError(err));
    return;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (!(await isStale(fs, file, name))) continue;
      await fs.rm(file, { force: true });
      removed++;
    } catch (err) {
      log.warn("could not remove a stale temp image", { file: name, ...describeError(err) });
    }
  }
  if (removed > 0) log.info("removed stale temp images", { count: removed });
}

async function isStale(fs: StorageFs, file: string, name: string): Promise<boolean> {
  const m = TEMP_PATTERN.exec(name);
  if (m && m[1] === HOST) {
    const pid = Number(m[2]);
    if (pid === process.pid) return m[3] !== INSTANCE;
    return !isRunning(pid);
  }
  try {
    return Date.now() - (await fs.stat(file)).mtimeMs > STALE_TEMP_MS;
  } catch {
    return false;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
