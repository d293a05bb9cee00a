// Runs the retention sweep at start and then every hour (sooner while a bounded run left due images behind), one
// run at a time per process. Started by server.ts; on Vercel a cron route runs the same sweep (see docs/vercel.md).
import { describeError, log } from "@/lib/log";
import type { SweepResult } from "./sweep";

export const SWEEP_EVERY_MS = 60 * 60_000;
/** After a run that stopped at its bounds. */
export const SWEEP_AGAIN_MS = 60_000;

export type SweepScheduler = { stop(): Promise<void> };

export function startImageSweeps(
  sweep: () => Promise<SweepResult>,
  opts: { everyMs?: number; againMs?: number } = {},
): SweepScheduler {
  const everyMs = opts.everyMs ?? SWEEP_EVERY_MS;
  const againMs = opts.againMs ?? SWEEP_AGAIN_MS;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    // A few percent of jitter, so instances started together drift apart instead of sweeping in step forever.
    timer = setTimeout(tick, ms * (1 + Math.random() * 0.05));
    // The sweep never keeps the process alive on its own.
    timer.unref();
  };
  const tick = () => {
    running = sweep().then(
      (result) => schedule(result.more ? againMs : everyMs),
      (err: unknown) => {
        // A store or storage outage: try again at the next interval; nothing is lost by waiting.
        log.warn("image sweep failed", describeError(err));
        schedule(everyMs);
      },
    );
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
