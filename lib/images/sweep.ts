// The retention sweep: removes images past their expires_at or older than the retention configured now. Safe on
// several instances at once: records are claimed atomically before their files are touched, so each image is
// deleted by one sweeper, and only due records are ever claimed, so nothing goes early. Each run is bounded.
import { describeError, log } from "@/lib/log";
import { observeSweep } from "@/lib/metrics";
import { TEMP_MAX_AGE_MS } from "@/lib/storage/names";
import type { ImageStorage } from "@/lib/storage/types";
import { dueAt, type LibraryDeps, newLease, removeClaimed } from "./library";

export type SweepOptions = {
  /**
   * Records claimed at once.
   * @default 500
   */
  batch?: number;
  /**
   * Most images one run removes; the rest waits for the next run.
   * @default 5000
   */
  maxPerRun?: number;
  /**
   * Longest a run keeps claiming new batches.
   * @default 300_000
   */
  maxRunMs?: number;
  /**
   * How long a claim holds; work not started well inside it is handed back.
   * @default 600_000
   */
  leaseMs?: number;
  /** The clock, for tests and the bench. */
  now?: () => number;
};

export type SweepResult = {
  removed: number;
  failed: number;
  /** True when the run stopped at its bounds with due images left: run again soon. */
  more: boolean;
  ms: number;
};

/** What this process's sweeps have done, for the operators' console. */
export type SweepStats = {
  runs: number;
  totalRemoved: number;
  totalFailed: number;
  lastRunAt: string | null;
  lastRemoved: number;
  lastError: string | null;
};

/** Where a process counts its sweeps (the composition root holds one; each instance counts its own). */
export function createSweepStats(): SweepStats {
  return { runs: 0, totalRemoved: 0, totalFailed: 0, lastRunAt: null, lastRemoved: 0, lastError: null };
}

export async function sweepImages(
  deps: LibraryDeps & { sweepStats?: SweepStats },
  opts: SweepOptions = {},
): Promise<SweepResult> {
  const stats = deps.sweepStats ?? createSweepStats();
  const batch = opts.batch ?? 500;
  const maxPerRun = opts.maxPerRun ?? 5000;
  const maxRunMs = opts.maxRunMs ?? 300_000;
  const leaseMs = opts.leaseMs ?? 600_000;
  const now = opts.now ?? Date.now;
  const started = performance.now();
  let removed = 0;
  let failed = 0;
  let more = false;
  try {
    for (let claimed = 0; ; ) {
      if (claimed >= maxPerRun || performance.now() - started >= maxRunMs) {
        more = true;
        break;
      }
      const at = now();
      const lease = newLease(at, leaseMs);
      const due = await deps.images.claimDue(
        lease,
        dueAt(at, deps.retentionDays),
        Math.min(batch, maxPerRun - claimed),
      );
      if (due.length === 0) break;
      claimed += due.length;
      // Clock for the lease: `now` may be a test's clock, but the lease deadline is real time.
      const result = await removeClaimed(due, lease, deps.images, deps.storage, {
        stopAt: Date.now() + leaseMs - Math.min(60_000, leaseMs / 2),
      });
      removed += result.removed;
      failed += result.failed;
      // Files that would not go (storage down) are left for the next run rather than retried in a loop.
      if (result.failed > 0 || result.released > 0) {
        more = result.released > 0;
        break;
      }
    }
    stats.lastError = null;
    observeSweep(true, removed, failed);
  } catch (err) {
    observeSweep(false, removed, failed);
    stats.lastError = err instanceof Error ? err.message : String(err);
    log.warn("image sweep stopped early", { removed, failed, ...describeError(err) });
    throw err;
  } finally {
    stats.runs++;
    stats.totalRemoved += removed;
    stats.totalFailed += failed;
    stats.lastRemoved = removed;
    stats.lastRunAt = new Date().toISOString();
  }
  await sweepTempArea(deps.storage, now());
  const ms = Math.round(performance.now() - started);
  if (removed > 0 || failed > 0 || more) {
    log.info("image sweep", { removed, failed, more, ms, retention_days: deps.retentionDays });
  }
  return { removed, failed, more, ms };
}

/**
 * Empties the storage's temporary area of what is older than TEMP_MAX_AGE_MS. Uploads left there are only ever
 * read within minutes, so a failure here is logged and left for the next run; it never fails the image sweep.
 */
async function sweepTempArea(storage: ImageStorage, now: number): Promise<void> {
  try {
    const removed = await storage.temp.sweep(now - TEMP_MAX_AGE_MS);
    if (removed > 0) log.info("removed old temporary objects", { count: removed });
  } catch (err) {
    log.warn("could not sweep the temporary area", describeError(err));
  }
}
