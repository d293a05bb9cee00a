// Finding a caller's own job: anyone else's, a missing one and an expired one are all the same 404.
import type { Caller } from "@/lib/auth/types";
import { NotFound } from "@/lib/errors";
import type { JobRecord } from "@/lib/jobs/types";
import type { Services } from "@/lib/services";

const JOB_ID = /^job_[a-f0-9]{32}$/;

export async function findOwnJob(svc: Pick<Services, "jobs">, caller: Caller, id: string): Promise<JobRecord> {
  const job = JOB_ID.test(id) ? await svc.jobs.get(id) : null;
  if (!job || job.owner !== caller.identity) throw new NotFound("No such job.");
  return job;
}
