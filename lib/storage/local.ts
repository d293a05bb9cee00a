// Embedded image storage: files under DATA_DIR/images, served by GET /cdn/<id>.png.
import crypto from "node:crypto";
import nodeFs from "node:fs/promises";
import path from "node:path";
import { streamFile } from "./file-stream";
import type { ImageStorage } from "./types";

/** 128 random bits as 32 hex characters; the only shape /cdn accepts, so no path can escape the folder. */
const ID_PATTERN = /^[a-f0-9]{32}$/;

/** The file system calls local storage makes; tests pass a double that injects failures. */
export type StorageFs = Pick<typeof nodeFs, "mkdir" | "open" | "rename" | "rm" | "writeFile">;

export function isLocalImageId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export function createLocalStorage(
  dataDir: string,
  publicBase: string | undefined,
  opts: { fs?: StorageFs } = {},
): ImageStorage {
  const fs = opts.fs ?? nodeFs;
  const dir = path.join(dataDir, "images");
  const fileOf = (id: string) => path.join(dir, `${id}.png`);
  let ready: Promise<unknown> | undefined;

  return {
    kind: "local",
    async putPng(png, origin) {
      ready ??= fs.mkdir(dir, { recursive: true });
      await ready;
      const id = crypto.randomBytes(16).toString("hex");
      const file = fileOf(id);
      // Write then rename, so a reader never sees half a file, and the URL resolves once we return.
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(tmp, png);
      await fs.rename(tmp, file);
      return { id, url: `${publicBase ?? `${origin}/cdn`}/${id}.png` };
    },
    async openPng(id) {
      if (!isLocalImageId(id)) return null;
      let handle: nodeFs.FileHandle;
      try {
        handle = await fs.open(fileOf(id), "r");
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
    },
    async deletePng(id) {
      if (!isLocalImageId(id)) return;
      await fs.rm(fileOf(id), { force: true });
    },
  };
}
