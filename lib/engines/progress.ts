// Progress from deep inside a provider call (an SDK's poll loop) to the job that runs it, without threading a
// callback through every SDK: the chain runs each route inside the job's reporter.
import { AsyncLocalStorage } from "node:async_hooks";
import type { WorkProgress } from "./types";

const reporters = new AsyncLocalStorage<(progress: WorkProgress) => void>();

export function runWithProgress<T>(report: ((p: WorkProgress) => void) | undefined, fn: () => Promise<T>): Promise<T> {
  return report ? reporters.run(report, fn) : fn();
}

/** Tells the running job what its provider says, if anyone is listening. */
export function reportProgress(progress: WorkProgress): void {
  reporters.getStore()?.(progress);
}
