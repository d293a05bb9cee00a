// Whether the image storage answers, for /api/status: cached briefly (status is polled often) and bounded in time,
// so a bucket that hangs makes status degraded, never slow.
import { StorageUnavailable } from "@/lib/errors";
import type { ImageStorage } from "./types";

const CACHE_MS = 5_000;
const TIMEOUT_MS = 2_000;

/** Null while the storage answers; else the reason, in words an operator can act on. */
export type StorageHealth = () => Promise<string | null>;

/**
 * The one sentence /api/ready and /api/status give for a storage that fails its check: with the storage's own words
 * when it refuses the configuration (a wrong secret, no such bucket), which only the operator can fix.
 */
export function describeStorageProblem(err: unknown): string {
  const detail =
    err instanceof StorageUnavailable && err.refused ? `: ${err.message.replace(/^image storage: /, "")}` : "";
  return `The image storage does not answer${detail}.`;
}

export function createStorageHealth(storage: ImageStorage, opts: { timeoutMs?: number } = {}): StorageHealth {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  let last: { at: number; result: Promise<string | null> } | undefined;
  return () => {
    const now = Date.now();
    if (last && now - last.at < CACHE_MS) return last.result;
    const result = probe(storage, timeoutMs);
    last = { at: now, result };
    return result;
  };
}

async function probe(storage: ImageStorage, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(describeStorageProblem(null)), timeoutMs);
  });
  const check = storage.check().then(() => null, describeStorageProblem);
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
