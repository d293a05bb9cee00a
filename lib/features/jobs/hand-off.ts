// Where a flow's work runs once its units are taken: as a job the caller follows (async), on the work tier while
// the call waits (sync, when the tier is not inline), or here (undefined: the flow runs it itself).
import type { JobKind } from "@/lib/jobs/types";
import type { JobTask } from "@/lib/tier/types";
import { type AsyncMode, acceptJob } from "./async";
import type { FlowAnswer, FlowContext } from "./flow-call";
import { runSync } from "./sync";

/** The answer of work that does not run in this call (a job, or the tier's result), or undefined to run it here. */
export async function handOff(
  call: FlowContext,
  kind: JobKind,
  mode: AsyncMode,
  task: JobTask,
): Promise<FlowAnswer | undefined> {
  const { svc, caller, quota, origin, signal } = call;
  if (mode.async)
    return { job: await acceptJob(svc, { kind, caller, quota, webhookUrl: mode.webhookUrl, origin }, task) };
  if (svc.tier.kind !== "inline") return { body: await runSync(svc, { kind, caller, quota, signal }, task) };
  return undefined;
}
