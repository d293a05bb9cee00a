// Production image storage on Vercel Blob, so images outlive serverless instances and are served from its CDN.
import crypto from "node:crypto";
import { BlobNotFoundError, del, head, put } from "@vercel/blob";
import type { ImageStorage } from "./types";

/** Images are immutable (every put gets a new random name), so caches may keep them for a year. */
const ONE_YEAR_S = 31_536_000;
/** What putPng returns as id: our 128-bit name plus Blob's random suffix. */
const BLOB_ID = /^darkroom\/[0-9a-f]{32}-[A-Za-z0-9]+\.png$/;

export function createVercelBlobStorage(opts: { token: string }): ImageStorage {
  const { token } = opts;
  return {
    kind: "vercel-blob",
    async putPng(png) {
      // 128 random bits make the name unguessable on their own; the random suffix is Blob's own guard on top.
      const pathname = `darkroom/${crypto.randomBytes(16).toString("hex")}.png`;
      const blob = await put(pathname, png, {
        access: "public",
        addRandomSuffix: true,
        contentType: "image/png",
        cacheControlMaxAge: ONE_YEAR_S,
        token,
      });
      return { id: blob.pathname, url: blob.url };
    },
    async openPng(id) {
      // Only our own pathnames: this never fetches a caller-supplied URL.
      if (!BLOB_ID.test(id)) return null;
      let url: string;
      try {
        // The blob host is assigned by the service, so ask it rather than guess.
        url = (await head(id, { token })).url;
      } catch (err) {
        if (err instanceof BlobNotFoundError) return null;
        throw err;
      }
      const res = await fetch(url);
      if (res.status === 404 || !res.body) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        await res.body.cancel();
        throw new Error(`blob fetch failed: HTTP ${res.status}`);
      }
      const size = Number(res.headers.get("content-length"));
      if (!Number.isSafeInteger(size) || size < 0) {
        await res.body.cancel();
        throw new Error("blob fetch gave no length");
      }
      return { size, stream: res.body };
    },
    async deletePng(id) {
      if (!BLOB_ID.test(id)) return;
      await del(id, { token });
    },
  };
}
