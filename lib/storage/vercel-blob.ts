// Production image storage on Vercel Blob, so images outlive serverless instances and are served from its CDN.
import crypto from "node:crypto";
import { BlobNotFoundError, head, put } from "@vercel/blob";
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
    async readPng(id) {
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
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`blob fetch failed: HTTP ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
  };
}
