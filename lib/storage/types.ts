// The image storage interface: local files under DATA_DIR (embedded) and Vercel Blob (production).
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

export interface ImageStorage {
  readonly kind: "local" | "vercel-blob";
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
}
