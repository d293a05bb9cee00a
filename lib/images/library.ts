// The image library: every stored image gets a record, written with its file; deleting removes both, record first.
// Plain arguments in, domain errors out, so routes, the sweep, the CLI and the console all share it.
import crypto from "node:crypto";
import type { OutputFormat } from "@/lib/catalog/output-formats";
import { ImageTooLarge, NotFound } from "@/lib/errors";
import type { Claimant, Due, ImageKind, ImageParams, ImageRecord, ImageStore, Lease } from "@/lib/images/store";
import { describeError, log } from "@/lib/log";
import { observeImageStored } from "@/lib/metrics";
import { withSpan } from "@/lib/metrics/trace";
import { DAY_MS } from "@/lib/quota/types";
import { readAll } from "@/lib/storage/read-all";
import type { ImageStorage } from "@/lib/storage/types";
import { hashDeleteToken, newDeleteToken } from "./owner";

/** What a generation or enhancement needs to record its image. */
export type RecordDeps = {
  images: ImageStore;
  /** From imageOwnerOf: the Pro key's id, or the hashed Free identity. */
  owner: string;
  /** IMAGE_RETENTION_DAYS: sets expires_at; 0 keeps the image forever. */
  retentionDays: number;
};

export type LibraryDeps = { images: ImageStore; storage: ImageStorage; retentionDays: number };

export type RecordedImage = {
  id: string;
  url: string;
  /** ISO 8601, or null when kept forever. */
  expiresAt: string | null;
  /** Shown once, in the 200 body; only its hash is kept. */
  deleteToken: string;
};

/** How long one API or operator delete may hold its claim: a Blob call gives up after 20 s. */
const DELETE_LEASE_MS = 2 * 60_000;
/** Files removed at once by one deleter. */
const DELETE_CONCURRENCY = 8;

export function expiryOf(createdAt: number, retentionDays: number): number | null {
  return retentionDays > 0 ? createdAt + Math.round(retentionDays * DAY_MS) : null;
}

/** What is due at `now` under the retention configured now (an operator who shortens it frees the space). */
export function dueAt(now: number, retentionDays: number): Due {
  return { now, cutoff: retentionDays > 0 ? now - Math.round(retentionDays * DAY_MS) : null };
}

/** When a record goes: its own expires_at, or sooner when retention was shortened since it was made. */
export function effectiveExpiry(record: Pick<ImageRecord, "createdAt" | "expiresAt">, retentionDays: number) {
  const byRetention = expiryOf(record.createdAt, retentionDays);
  if (record.expiresAt === null) return byRetention;
  return byRetention === null ? record.expiresAt : Math.min(record.expiresAt, byRetention);
}

export function newLease(now: number, ms: number): Lease {
  return { id: crypto.randomBytes(12).toString("hex"), now, until: now + ms };
}

/**
 * Stores the PNG, then its record. Never a record without its file: the file comes first, and when the record
 * cannot be written the file is removed again and the error (StoreUnavailable: 503 busy) is thrown.
 */
export async function storeImage(
  storage: ImageStorage,
  png: Buffer,
  origin: string,
  image: {
    kind: ImageKind;
    params: ImageParams;
    width: number;
    height: number;
    format?: OutputFormat;
    sourceImageId?: string;
  },
  deps: RecordDeps,
): Promise<RecordedImage> {
  const stored = await withSpan("darkroom.storage_write", { "darkroom.storage": storage.kind, bytes: png.length }, () =>
    storage.put(png, origin, image.format),
  );
  const deleteToken = newDeleteToken();
  const createdAt = Date.now();
  const expiresAt = expiryOf(createdAt, deps.retentionDays);
  try {
    await deps.images.insert({
      id: stored.id,
      owner: deps.owner,
      kind: image.kind,
      url: stored.url,
      params: image.params,
      width: image.width,
      height: image.height,
      bytes: png.length,
      createdAt,
      expiresAt,
      deleteTokenHash: hashDeleteToken(deleteToken),
      ...(image.sourceImageId !== undefined && { sourceImageId: image.sourceImageId }),
    });
  } catch (err) {
    await storage.delete(stored.id).catch((e: unknown) => {
      // The file outlives its failed record: nothing will ever sweep it, so say so loudly.
      log.error("image record failed and its file could not be removed", { image_id: stored.id, ...describeError(e) });
    });
    throw err;
  }
  observeImageStored(image.kind, png.length);
  return {
    id: stored.id,
    url: stored.url,
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    deleteToken,
  };
}

/** One of the owner's live images, or NotFound: someone else's id and an unknown one answer the same. */
export async function findOwnImage(
  id: string,
  owner: string,
  deps: Pick<LibraryDeps, "images" | "retentionDays">,
): Promise<ImageRecord> {
  const record = id.length <= 200 ? await deps.images.find(id, owner, dueAt(Date.now(), deps.retentionDays)) : null;
  if (!record) throw new NotFound("No image with this id in your library.");
  return record;
}

/** A stored image's bytes, up to `maxBytes`; NotFound when the file is gone. */
export async function readImageBytes(storage: ImageStorage, id: string, maxBytes: number): Promise<Buffer> {
  const opened = await storage.open(id);
  if (!opened) throw new NotFound("No image with this id in your library.");
  if (opened.size > maxBytes) {
    await opened.stream.cancel();
    throw new ImageTooLarge("The library image is over the upload limit.");
  }
  return readAll(opened);
}

/** An owner's live images, newest first. `after` is the position a previous page ended at. */
export async function listImages(
  owner: string,
  opts: { limit: number; after?: string },
  deps: Pick<LibraryDeps, "images" | "retentionDays">,
) {
  return deps.images.list(owner, { ...dueAt(Date.now(), deps.retentionDays), ...opts });
}

/**
 * Deletes one image for its owner, a holder of its delete token, or the operator: the record is claimed (from then
 * on it is gone for everyone), then the file is removed, then the record. Throws NotFound for anything else.
 * When the file cannot be removed the claim is given up and the error thrown, so the caller may retry.
 */
export async function deleteImage(
  id: string,
  who: { owner?: string; deleteToken?: string } | "operator",
  deps: LibraryDeps,
): Promise<ImageRecord> {
  const now = Date.now();
  const claimant: Claimant =
    who === "operator"
      ? "operator"
      : { owner: who.owner, tokenHash: who.deleteToken ? hashDeleteToken(who.deleteToken) : undefined };
  const lease = newLease(now, DELETE_LEASE_MS);
  const record = await deps.images.claim(id, claimant, lease, dueAt(now, deps.retentionDays));
  if (!record) throw new NotFound("No image with this id.");
  try {
    await deps.storage.delete(record.id);
  } catch (err) {
    await deps.images.release(record.id, lease.id, Date.now()).catch(() => {});
    throw err;
  }
  await finishQuietly(deps.images, record, lease.id);
  return record;
}

/** Deletes every image of an owner (e.g. a Pro key being removed), in bounded batches. */
export async function deleteImagesOf(
  owner: string,
  deps: LibraryDeps,
  opts: { batch?: number } = {},
): Promise<{ removed: number; failed: number }> {
  const batch = opts.batch ?? 200;
  let removed = 0;
  let failed = 0;
  for (;;) {
    const lease = newLease(Date.now(), DELETE_LEASE_MS);
    const claimed = await deps.images.claimOwned(owner, lease, batch);
    if (claimed.length === 0) break;
    const result = await removeClaimed(claimed, lease, deps.images, deps.storage);
    removed += result.removed;
    failed += result.failed;
    // What failed stays claimable (released); stop rather than spin on a storage outage.
    if (result.failed > 0 || claimed.length < batch) break;
  }
  if (removed > 0 || failed > 0) log.info("deleted an owner's images", { owner, removed, failed });
  return { removed, failed };
}

export type RemoveResult = { removed: number; failed: number; released: number };

/**
 * Removes the files of claimed records, then the records, a few at a time. Work not started before `stopAt` (kept
 * well inside the lease, so no one else can have claimed the record meanwhile) is released for a later run.
 */
export async function removeClaimed(
  records: ImageRecord[],
  lease: Lease,
  images: ImageStore,
  storage: ImageStorage,
  opts: { stopAt?: number; concurrency?: number } = {},
): Promise<RemoveResult> {
  const stopAt = opts.stopAt ?? lease.until - 30_000;
  const result: RemoveResult = { removed: 0, failed: 0, released: 0 };
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const record = records[next++];
      if (Date.now() >= stopAt) {
        result.released++;
        await images.release(record.id, lease.id, Date.now()).catch(() => {});
        continue;
      }
      try {
        await storage.delete(record.id);
      } catch (err) {
        result.failed++;
        log.warn("could not remove an image file; it will be retried", { image_id: record.id, ...describeError(err) });
        await images.release(record.id, lease.id, Date.now()).catch(() => {});
        continue;
      }
      if (await finishQuietly(images, record, lease.id)) result.removed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? DELETE_CONCURRENCY, records.length) }, worker));
  return result;
}

/**
 * The file is gone; the record only needs removing. If that fails, the claim stays and runs out, and the next
 * sweep finishes it (removing an absent file is a no-op), so the caller is not failed for it.
 */
async function finishQuietly(images: ImageStore, record: ImageRecord, leaseId: string): Promise<boolean> {
  try {
    return await images.finish(record, leaseId);
  } catch (err) {
    log.warn("image file removed but its record remains until the next sweep", {
      image_id: record.id,
      ...describeError(err),
    });
    return false;
  }
}
