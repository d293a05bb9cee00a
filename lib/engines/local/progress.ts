// Progress and seeds for local GPU jobs: step progress goes to the job's onProgress, never backwards.
import { randomInt } from "node:crypto";
import type { GenerateJob } from "@/lib/engines/types";
import { log } from "@/lib/log";

export type ProgressReporter = (fraction: number | null, stage: string) => void;

/** Fractions only grow (a failover to another server does not send the bar back); `null` means unknown. */
export function reporterFor(job: Pick<GenerateJob, "onProgress" | "requestId">): ProgressReporter {
  let best = 0;
  return (fraction, stage) => {
    if (!job.onProgress) return;
    const clamped = fraction === null ? null : Math.max(best, Math.min(1, Math.max(0, fraction)));
    if (clamped !== null) best = clamped;
    try {
      job.onProgress({ fraction: clamped, stage });
    } catch (err) {
      log.warn("progress listener failed", { request_id: job.requestId, detail: String(err) });
    }
  };
}

/** The caller's seed, or one chosen here so the answer can still say which seed made the image. */
export function seedFor(job: GenerateJob): number {
  return job.seed ?? randomInt(0, 2 ** 32);
}
