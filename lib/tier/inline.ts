// The inline tier: jobs run in this process under the job runner, as they always have.
import type { JobRunner } from "@/lib/jobs/runner";
import type { JobStore } from "@/lib/jobs/store";
import type { WorkTier } from "./types";

export function createInlineTier(runner: JobRunner, jobs: Pick<JobStore, "get">): WorkTier {
  /** The run of each job accepted here, until it settles. */
  const running = new Map<string, Promise<void>>();
  return {
    kind: "inline",
    async accept(record, task) {
      const accepted = await runner.accept(record, task.work);
      const done = accepted.done.finally(() => running.delete(record.id));
      running.set(record.id, done);
      return { done };
    },
    async waitFor(record, signal, deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      const gone = new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => resolve(), { once: true });
        timer = setTimeout(resolve, deadlineMs);
      });
      await Promise.race([running.get(record.id), gone]);
      clearTimeout(timer);
      if (running.has(record.id)) await runner.cancel(record.id);
      return (await jobs.get(record.id)) ?? record;
    },
    stats: async () => null,
    close: async () => undefined,
  };
}
