// The image storage interface: local files under DATA_DIR (embedded) and Vercel Blob (production).

export type StoredImage = {
  /** Unguessable id (≥128 bits) for local storage, or the blob pathname. */
  id: string;
  /** Absolute URL that resolves to the image from the moment put() returns. */
  url: string;
};

export interface ImageStorage {
  readonly kind: "local" | "vercel-blob";
  /**
   * Store PNG bytes durably, then return where they are served.
   * `origin` is the app's own origin, used when no CDN base is configured.
   */
  putPng(png: Buffer, origin: string): Promise<StoredImage>;
  /** Read back a stored image by id (local storage serves /cdn/<id>.png from this); null when absent. */
  readPng(id: string): Promise<Buffer | null>;
}
