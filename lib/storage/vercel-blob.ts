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
  put,
} from "@vercel/blob";
import { OUTPUT_FORMATS } from "@/lib/catalog/output-formats";
import { StorageUnavailable } from "@/lib/errors";
import { extensionsPattern, newImageFile } from "./names";
import type { ImageStorage } from "./types";

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

export function createVercelBlobStorage(opts: { token: string; deadlineMs?: number }): ImageStorage {
  const { token } = opts;
  const deadlineMs = opts.deadlineMs ?? BLOB_DEADLINE_MS;
  return {
    kind: "vercel-blob",
    async put(bytes, _origin, format = "png") {
      const { contentType } = OUTPUT_FORMATS[format];
      // 128 random bits make the name unguessable on their own; the random suffix is Blob's own guard on top.
      const pathname = `darkroom/${newImageFile(format).file}`;
      const blob = await withDeadline(deadlineMs, (abortSignal) =>
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
      // Only our own pathnames: this never fetches a caller-supplied URL.
      if (!BLOB_ID.test(id)) return null;
      let url: string;
      try {
        // The blob host is assigned by the service, so ask it rather than guess.
        url = (await withDeadline(deadlineMs, (abortSignal) => head(id, { token, abortSignal }))).url;
      } catch (err) {
        if (err instanceof BlobNotFoundError) return null;
        throw err;
      }
      let res: Response;
      try {
        res = await fetch(url, { signal: AbortSignal.timeout(deadlineMs) });
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
    },
    async delete(id) {
      if (!BLOB_ID.test(id)) return;
      await withDeadline(deadlineMs, (abortSignal) => del(id, { token, abortSignal }));
    },
  };
}

/** Runs one Blob call with an abort signal, giving up at the deadline; outages become StorageUnavailable. */
async function withDeadline<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The client sleeps between retries without watching the signal, so the deadline is raced, not only signalled.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new StorageUnavailable(`image storage did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([run(abort.signal), deadline]);
  } catch (err) {
    throw asStorageError(err);
  } finally {
    clearTimeout(timer);
  }
}

function asStorageError(err: unknown): unknown {
  if (err instanceof StorageUnavailable) return err;
  if (UNAVAILABLE.some((type) => err instanceof type)) {
    return new StorageUnavailable(`image storage: ${(err as Error).message}`, { cause: err });
  }
  // Anything that is not a BlobError comes from the network (fetch failed, connection reset, DNS).
  if (!(err instanceof BlobError)) return new StorageUnavailable("image storage cannot be reached", { cause: err });
  return err;
}
