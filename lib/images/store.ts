// The image record store: one record per stored image, on SQLite (embedded) and Upstash Redis (production).
//
// Deleting is two-phase, so a file is never left served without its record: a deleter first *claims* records (a
// lease: the record disappears from listings and cannot be claimed by anyone else until the lease runs out), then
// removes the files, then *finishes* the records. A claim whose file could not be removed is *released*: it stays
// hidden and any later delete or sweep may claim it again. Claims are atomic, so two sweepers never share an image.

export type ImageKind = "generate" | "enhance";

/**
 * The request's fields: generate's prompt, model, style, ratio and seed; or enhance's strength, scale and model.
 * Plus what produced the pixels (`engine`; `ai` is false for the built-in preview renderer).
 */
export type ImageParams =
  | {
      prompt: string;
      model: string;
      style: string;
      ratio: string;
      seed?: number;
      engine?: string;
      ai?: boolean;
      /** An edit's strength, and whether a mask limited it. */
      strength?: number;
      masked?: boolean;
      /** The output format when it is not png. */
      format?: string;
    }
  | {
      strength: number;
      scale: number;
      model: string;
      originalWidth: number;
      originalHeight: number;
      engine?: string;
      format?: string;
    };

export type ImageRecord = {
  /** The storage id (a local file id or a Blob pathname), also the id in the API. */
  id: string;
  /** "key_…" (a Pro key's id) or "free_…" (a keyed hash of a Free caller's identity). */
  owner: string;
  kind: ImageKind;
  url: string;
  params: ImageParams;
  width: number;
  height: number;
  bytes: number;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms; null when kept forever. */
  expiresAt: number | null;
  /** SHA-256 (hex) of the delete token handed to the creator. */
  deleteTokenHash: string;
  /** The library image an edit started from (its `image_id`), when it came from the library. */
  sourceImageId?: string;
};

/** One claim: its id (only the claimant may finish or release what it claimed) and when it runs out. */
export type Lease = { id: string; now: number; until: number };

/** What makes a record due: past its own expires_at, or created at or before `cutoff` (the retention now). */
export type Due = { now: number; cutoff: number | null };

/** Who may claim one record: its owner, a holder of its delete token, or the operator (anything, even expired). */
export type Claimant = { owner?: string; tokenHash?: string } | "operator";

export type ImagePage = {
  records: ImageRecord[];
  /** Where the next page starts (a position, not a record), or null at the end. */
  next: string | null;
};

export interface ImageStore {
  readonly kind: "sqlite" | "upstash";
  /** Adds a record; repeating the same insert is harmless. */
  insert(record: ImageRecord): Promise<void>;
  /** One live record (not claimed, not due) of `owner`; null for anything else, so no one learns another's ids. */
  find(id: string, owner: string, due: Due): Promise<ImageRecord | null>;
  /** An owner's live records (not claimed, not due), newest first, after position `after`. */
  list(owner: string, opts: Due & { limit: number; after?: string }): Promise<ImagePage>;
  /** Claims one live record for `claimant`; null when absent, due, claimed by someone else, or not theirs. */
  claim(id: string, claimant: Claimant, lease: Lease, due: Due): Promise<ImageRecord | null>;
  /** Claims up to `limit` due records, and records whose earlier claim ran out or was released. */
  claimDue(lease: Lease, due: Due, limit: number): Promise<ImageRecord[]>;
  /** Claims up to `limit` of an owner's records, due or not. */
  claimOwned(owner: string, lease: Lease, limit: number): Promise<ImageRecord[]>;
  /** Removes a claimed record; false when the lease is no longer ours (or the record is already gone). */
  finish(record: ImageRecord, leaseId: string): Promise<boolean>;
  /** Gives a claim up at once, so that a later delete or sweep may claim the record again. */
  release(id: string, leaseId: string, now: number): Promise<void>;
  /** How many records exist, claimed or not. */
  count(): Promise<number>;
  close(): Promise<void>;
}

/** Positions sort like (created_at, id): a fixed-width time, then the id. */
const TIME_WIDTH = 15;

export function positionOf(record: Pick<ImageRecord, "createdAt" | "id">): string {
  return `${String(record.createdAt).padStart(TIME_WIDTH, "0")}|${record.id}`;
}

export function parsePosition(position: string): { createdAt: number; id: string } | null {
  const m = /^(\d{15})\|(.+)$/s.exec(position);
  if (!m) return null;
  const createdAt = Number(m[1]);
  return Number.isSafeInteger(createdAt) ? { createdAt, id: m[2] } : null;
}

/** Whether a record is past its expiry or the retention configured now (`cutoff`). */
export function isDue(record: Pick<ImageRecord, "createdAt" | "expiresAt">, due: Due): boolean {
  if (record.expiresAt !== null && record.expiresAt <= due.now) return true;
  return due.cutoff !== null && record.createdAt <= due.cutoff;
}
