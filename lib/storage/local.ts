// Embedded image storage: files under DATA_DIR/images, served by GET /cdn/<id>.png.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { ImageStorage } from "./types";

/** 128 random bits as 32 hex characters; the only shape /cdn accepts, so no path can escape the folder. */
const ID_PATTERN = /^[a-f0-9]{32}$/;

export function isLocalImageId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export function createLocalStorage(dataDir: string, publicBase: string | undefined): ImageStorage {
  const dir = path.join(dataDir, "images");
  let ready: Promise<unknown> | undefined;

  return {
    kind: "local",
    async putPng(png, origin) {
      ready ??= fs.mkdir(dir, { recursive: true });
      await ready;
      const id = crypto.randomBytes(16).toString("hex");
      const file = path.join(dir, `${id}.png`);
      // Write then rename, so a reader never sees half a file, and the URL resolves once we return.
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(tmp, png);
      await fs.rename(tmp, file);
      return { id, url: `${publicBase ?? `${origin}/cdn`}/${id}.png` };
    },
    async readPng(id) {
      if (!isLocalImageId(id)) return null;
      try {
        return await fs.readFile(path.join(dir, `${id}.png`));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
  };
}
