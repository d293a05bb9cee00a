// The image storage interface: local files under DATA_DIR (embedded), Vercel Blob, and any S3-compatible bucket.
import type { OutputFormat } from "@/lib/catalog/output-formats";

export type StoredImage = {
  /** Unguessable id (≥128 bits) for local storage, or the blob pathname. */
  id: string;
  /** Absolute URL that resolves to the image from the moment put() returns. */
  url: string;
};

/** A stored image opened for reading. Whoever does not read `stream` to its end must cancel it to free the file. */
export type OpenedImage = {
  /** Exact length in bytes of what `stream` yields. */
  size: number;
  /** Pull-based: bytes are read only as the consumer asks for them, a bounded chunk at a time. */
  stream: ReadableStream<Uint8Array>;
};

/**
 * A temporary area beside the images, for bytes that one process leaves for another (an upload that a web instance
 * hands to a worker on another machine). Objects are addressed by a key the caller chooses: 16-128 characters of
 * `[A-Za-z0-9_-]`, unguessable (128 random bits or more) since Blob serves them publicly. They are never listed in
 * the library, never served at /cdn, and the retention sweep removes each one within a day of its write
 * (TEMP_MAX_AGE_MS), so a caller deletes what it has used but loses nothing if it cannot.
 */
export interface TempArea {
  /** Stores `bytes` under `key` (replacing what was there). Throws `StorageUnavailable` like an image put. */
  put(key: string, bytes: Buffer): Promise<void>;
  /** Opens the object for streaming; null when absent or when `key` is not a valid key. */
  open(key: string): Promise<OpenedImage | null>;
  /** Removes the object if it is there; an absent or invalid key is a no-op. */
  delete(key: string): Promise<void>;
  /** Removes every temporary object written before `before` (epoch ms); returns how many. Used by the sweep. */
  sweep(before: number): Promise<number>;
}

export interface ImageStorage {
  readonly kind: "local" | "vercel-blob" | "s3";
  /**
   * Store encoded image bytes (PNG unless `format` says otherwise) durably, then return where they are served; the
   * URL ends in the format's extension and is served with its Content-Type.
   * `origin` is the app's own origin, used when no CDN base is configured.
   * Throws `StorageUnavailable` when there is no room or the service cannot be reached; nothing partial is kept.
   */
  put(bytes: Buffer, origin: string, format?: OutputFormat): Promise<StoredImage>;
  /** Open a stored image by id for streaming (/cdn/<file> serves it from this); null when absent. */
  open(id: string): Promise<OpenedImage | null>;
  /** Remove a stored image if it is there (absent or foreign ids are a no-op); its URL answers 404 afterwards. */
  delete(id: string): Promise<void>;
  /**
   * A real round trip that proves the storage can be used (S3: HeadBucket); throws an error whose message says what
   * is wrong (unreachable, wrong credentials, no such bucket). For /api/ready and the start-up check.
   */
  check(): Promise<void>;
  /** See TempArea. */
  readonly temp: TempArea;
}
