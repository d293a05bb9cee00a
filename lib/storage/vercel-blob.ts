// Production image storage on Vercel Blob, so images outlive serverless instances and are served from its CDN.
import {
  BlobError,
  BlobNotFoundError,
  BlobRequestAbortedError,
  BlobServiceNotAvailable,
  BlobServiceRateLimited,
  BlobStoreSuspendedError,
  BlobUnknownError,
  del,
  head,
  list,
  put,
} from "@vercel/blob";
import { OUTPUT_FORMATS } from "@/lib/catalog/output-formats";
import { StorageUnavailable } from "@/lib/errors";
import { withDeadline } from "./deadline";
import { extensionsPattern, isTempKey, newImageFile } from "./names";
import type { ImageStorage, OpenedImage } from "./types";

/** Images are immutable (every put gets a new random name), so caches may keep them for a year. */
const ONE_YEAR_S = 31_536_000;
/** What put returns as id: our 128-bit name plus Blob's random suffix. */
const BLOB_ID = new RegExp(`^darkroom/[0-9a-f]{32}-[A-Za-z0-9]+\\.${extensionsPattern()}$`);
/**
 * How long one storage call may take, the client's own retries included. @vercel/blob retries 5xx answers and
 * network errors with exponential backoff (10 times by default, about 17 minutes), far longer than a caller waits.
 */
export const BLOB_DEADLINE_MS = 20_000;

/**
 * Errors that say the service cannot take the image now: outages (5xx, network), rate limits, and a store suspended
 * for going over its plan's limits. Others (a wrong token, a missing store) are configuration errors and stay loud.
 */
const UNAVAILABLE = [
  BlobServiceNotAvailable,
  BlobServiceRateLimited,
  BlobStoreSuspendedError,
  BlobUnknownError,
  BlobRequestAbortedError,
];

/** Temporary objects live under this pathname prefix, with the caller's key as the name. */
const TEMP_PREFIX = "darkroom-temp/";

/** One store's token and the deadline every call to it runs under. */
type BlobStore = {
  token: string;
  deadlineMs: number;
  call: <T>(run: (abortSignal: AbortSignal) => Promise<T>) => Promise<T>;
};

/** Streams a blob by its exact pathname (never a caller-supplied URL); null when absent. */
async function openPathname(store: BlobStore, pathname: string): Promise<OpenedImage | null> {
  const { token, call } = store;
  let url: string;
  try {
    // The blob host is assigned by the service, so ask it rather than guess.
    url = (await call((abortSignal) => head(pathname, { token, abortSignal }))).url;
  } catch (err) {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  }
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(store.deadlineMs) });
  } catch (err) {
    throw new StorageUnavailable("image storage did not answer", { cause: err });
  }
  if (res.status === 404 || !res.body) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) {
    await res.body.cancel();
    throw new StorageUnavailable(`blob fetch failed: HTTP ${res.status}`);
  }
  const size = Number(res.headers.get("content-length"));
  if (!Number.isSafeInteger(size) || size < 0) {
    await res.body.cancel();
    throw new StorageUnavailable("blob fetch gave no length");
  }
  return { size, stream: res.body };
}

/** The temporary objects: written under their key (overwritten), listed and removed in pages by the sweep. */
function tempObjects(store: BlobStore): ImageStorage["temp"] {
  const { token, call } = store;
  return {
    async put(key, bytes) {
      if (!isTempKey(key)) throw new TypeError("invalid temporary key");
      await call((abortSignal) =>
        put(`${TEMP_PREFIX}${key}`, bytes, {
          access: "public",
          addRandomSuffix: false,
          allowOverwrite: true,
          contentType: "application/octet-stream",
          token,
          abortSignal,
        }),
      );
    },
    async open(key) {
      return isTempKey(key) ? openPathname(store, `${TEMP_PREFIX}${key}`) : null;
    },
    async delete(key) {
      if (!isTempKey(key)) return;
      await call((abortSignal) => del(`${TEMP_PREFIX}${key}`, { token, abortSignal }));
    },
    async sweep(before) {
      let removed = 0;
      let cursor: string | undefined;
      do {
        const page = await call((abortSignal) => list({ prefix: TEMP_PREFIX, cursor, token, abortSignal }));
        const old = page.blobs.filter((b) => b.uploadedAt.getTime() < before).map((b) => b.url);
        if (old.length > 0) await call((abortSignal) => del(old, { token, abortSignal }));
        removed += old.length;
        cursor = page.hasMore ? page.cursor : undefined;
      } while (cursor);
      return removed;
    },
  };
}

export function createVercelBlobStorage(opts: { token: string; deadlineMs?: number }): ImageStorage {
  const { token } = opts;
  const deadlineMs = opts.deadlineMs ?? BLOB_DEADLINE_MS;
  const call = <T>(run: (abortSignal: AbortSignal) => Promise<T>) => withDeadline(deadlineMs, run, asStorageError);
  const store: BlobStore = { token, deadlineMs, call };
  return {
    kind: "vercel-blob",
    async put(bytes, _origin, format = "png") {
      const { contentType } = OUTPUT_FORMATS[format];
      // 128 random bits make the name unguessable on their own; the random suffix is Blob's own guard on top.
      const pathname = `darkroom/${newImageFile(format).file}`;
      const blob = await call((abortSignal) =>
        put(pathname, bytes, {
          access: "public",
          addRandomSuffix: true,
          contentType,
          cacheControlMaxAge: ONE_YEAR_S,
          token,
          abortSignal,
        }),
      );
      return { id: blob.pathname, url: blob.url };
    },
    async open(id) {
      return BLOB_ID.test(id) ? openPathname(store, id) : null;
    },
    async delete(id) {
      if (!BLOB_ID.test(id)) return;
      await call((abortSignal) => del(id, { token, abortSignal }));
    },
    async check() {
      // A head of a pathname no image has: a real round trip that a wrong token fails.
      try {
        await call((abortSignal) => head(`darkroom/${"0".repeat(32)}-ready.png`, { token, abortSignal }));
      } catch (err) {
        if (!(err instanceof BlobNotFoundError)) throw err;
      }
    },
    temp: tempObjects(store),
  };
}

function asStorageError(err: unknown): unknown {
  if (UNAVAILABLE.some((type) => err instanceof type)) {
    return new StorageUnavailable(`image storage: ${(err as Error).message}`, { cause: err });
  }
  // Anything that is not a BlobError comes from the network (fetch failed, connection reset, DNS).
  if (!(err instanceof BlobError)) return new StorageUnavailable("image storage cannot be reached", { cause: err });
  return err;
}
