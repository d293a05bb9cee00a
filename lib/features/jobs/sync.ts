// A synchronous request through the work tier: its work becomes a job like an async one (the units pass to it),
// the request waits for the job's end, and answers exactly as the work done in process would: the result body, or
// the contract's error. A caller who hangs up cancels the job (queued: dropped, units back; running: stopped).
import type { Caller } from "@/lib/auth/types";
import { WorkAborted } from "@/lib/errors";
import type { JobKind, JobRecord } from "@/lib/jobs/types";
import type { Quota } from "@/lib/quota/ledger";
import { ApiError } from "@/lib/schemas/api-error";
import { type ErrorCode, paramOf } from "@/lib/schemas/error-codes";
import type { Services } from "@/lib/services";
import type { JobTask } from "@/lib/tier/types";

/** How long a synchronous request waits for its job: within the routes' own limit (maxDuration, 300 s). */
export const SYNC_WAIT_MS = 290_000;

/** Retry-After of a `busy` job error (the record keeps no header). */
const BUSY_RETRY_AFTER_S = 30;

export async function runSync(
  svc: Pick<Services, "runner" | "tier">,
  input: { kind: JobKind; caller: Caller; quota: Quota; signal: AbortSignal },
  task: JobTask,
): Promise<Record<string, unknown>> {
  const { caller, quota } = input;
  const record = svc.runner.newRecord({
    kind: input.kind,
    owner: caller.identity,
    units: quota.heldUnits(),
    keyId: caller.keyId,
    plan: caller.plan,
    model: quota.noted.model,
    sync: true,
  });
  await quota.handOff(() => svc.tier.accept(record, task));
  const final = await svc.tier.waitFor(record, input.signal, SYNC_WAIT_MS);
  if (final.status === "succeeded" && final.result) {
    const { engine, images } = final.result;
    quota.note({
      engine: typeof engine === "string" ? engine : undefined,
      made: Array.isArray(images) ? images.length : 1,
    });
    return final.result;
  }
  throw errorOf(final, input.signal);
}

/** The error a job ended with, as the request answers it. */
function errorOf(job: JobRecord, signal: AbortSignal): Error {
  if (job.status === "canceled" && signal.aborted) return new WorkAborted();
  if (job.status !== "failed") {
    // Past the deadline, cancelled: no worker took it in time, or it ran too long.
    return new ApiError("busy", "No worker finished the work in time. Please retry shortly.", {
      retryAfter: BUSY_RETRY_AFTER_S,
    });
  }
  if (!job.error) return new ApiError("server_error");
  const code = job.error.code as ErrorCode;
  return new ApiError(code, job.error.message, {
    // The field the in-process answer names: the job's record keeps only the code and message.
    param: paramOf(code) ?? undefined,
    retryAfter: code === "busy" ? BUSY_RETRY_AFTER_S : undefined,
  });
}
