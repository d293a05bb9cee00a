// GET /api/jobs/{id} – an async job's record; DELETE /api/jobs/{id} – cancel it.

import { findOwnJob } from "@/lib/features/jobs/access";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { isFinished, viewOf } from "@/lib/jobs/types";
import { ApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Job reads use no daily quota; the per-minute job guard bounds polling. */
const JOB_READ = { quota: "status", guard: { bucket: "jobReadGuard", what: "job" } } as const;

type Params = { params: Promise<{ id: string }> };

export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return withApi(JOB_READ, async ({ caller, svc }) => {
    const job = await findOwnJob(svc, caller, id);
    return { success: true, ...viewOf(job) };
  })(req);
}

export async function DELETE(req: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return withApi(JOB_READ, async ({ caller, svc }) => {
    const job = await findOwnJob(svc, caller, id);
    if (isFinished(job.status)) throw new ApiError("job_finished");
    const canceled = await svc.runner.cancel(job.id);
    // It finished between the read and the cancel.
    if (canceled?.status !== "canceled") throw new ApiError("job_finished");
    return { success: true, ...viewOf(canceled) };
  })(req);
}

export const { POST, PUT, PATCH } = rejectOtherMethods(["GET", "DELETE"]);
