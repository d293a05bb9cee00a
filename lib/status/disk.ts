// Free space on DATA_DIR, for /api/status: the SQLite file and local images share that disk, and a full disk
// fails both. Cached briefly, because status is polled often and the answer changes slowly.
import fs from "node:fs/promises";
import path from "node:path";

const CACHE_MS = 5_000;
const MB = 1024 * 1024;

export type DiskCheck = { freeMb: number; minFreeMb: number; low: boolean };

type Cached = { at: number; key: string; result: Promise<DiskCheck | null> };

/** Free space for unprivileged writers on the disk holding `dir` (or its nearest existing parent); null if unknown. */
export async function readFreeMb(dir: string): Promise<number | null> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const s = await fs.statfs(at);
      return (Number(s.bavail) * Number(s.bsize)) / MB;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || path.dirname(at) === at) return null;
    }
  }
}

export type DiskChecker = (dir: string, minFreeMb: number, now?: number) => Promise<DiskCheck | null>;

/**
 * Whether free space on `dir` is below `minFreeMb`; null when the check is off (0) or the space is unknown. The
 * composition root holds one checker, whose answers are cached for a few seconds.
 */
export function createDiskChecker(): DiskChecker {
  const cache: { last?: Cached } = {};
  return (dir, minFreeMb, now = Date.now()) => checkDisk(cache, dir, minFreeMb, now);
}

function checkDisk(cache: { last?: Cached }, dir: string, minFreeMb: number, now: number) {
  if (minFreeMb <= 0) return Promise.resolve(null);
  const key = `${dir}\0${minFreeMb}`;
  const last = cache.last;
  if (last && last.key === key && now - last.at < CACHE_MS) return last.result;
  const result = readFreeMb(dir).then((freeMb) =>
    freeMb === null ? null : { freeMb: Math.floor(freeMb), minFreeMb, low: freeMb < minFreeMb },
  );
  cache.last = { at: now, key, result };
  return result;
}
