// The work of a generate or enhance job, from its plain description (JobSpec): the route builds the description,
// and whichever tier runs the job rebuilds the same work from it, in this process or in a worker's, so the result is
// exactly the body the synchronous call gives.
import type { Caller } from "@/lib/auth/types";
import type { GenerateInput } from "@/lib/engines/generate";
import { generateImages } from "@/lib/engines/generate";
import type { EnhanceInput } from "@/lib/enhance/enhance";
import { enhanceImage } from "@/lib/enhance/enhance";
import { enhanceBody } from "@/lib/features/enhance/answer";
import { enhanceDeps } from "@/lib/features/enhance/deps";
import { generateBody, refunded } from "@/lib/features/generate/answer";
import { generateDeps } from "@/lib/features/generate/deps";
import { recordDepsFor } from "@/lib/features/images/records";
import type { JobWork } from "@/lib/jobs/runner";
import type { Usage } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";
import type { JobSpec, JobTask } from "@/lib/tier/types";

/** Who asked, and where the answer's URLs point. */
type Origin = { requestId: string; origin: string; caller: Caller; usage: Usage };

export type GenerateSpec = Origin & { kind: "generate"; input: GenerateInput; uses12: boolean };
export type EnhanceSpec = Origin & { kind: "enhance"; input: EnhanceInput };

/**
 * The work a description stands for, built on this process's services. A Pro key revoked while its job waits stops
 * it as it leaves the queue: the job fails as `unauthorized` and the unit comes back.
 */
export function workOf(svc: Services, spec: JobSpec): JobWork {
  const s = spec as GenerateSpec | EnhanceSpec;
  const work = s.kind === "generate" ? generateWork(svc, s) : enhanceWork(svc, s);
  const keyId = s.caller.keyId;
  if (!keyId) return work;
  return (ctx) =>
    work({
      ...ctx,
      begin: async () => {
        const key = await svc.keys.findKey(keyId);
        if (!key || key.revokedAt) throw new ApiError("unauthorized", "The key was revoked before the job started.");
        await ctx.begin();
      },
    });
}

/** A description with its work, for WorkTier.accept. */
export function taskOf(svc: Services, spec: GenerateSpec | EnhanceSpec): JobTask {
  return { spec, work: workOf(svc, spec) };
}

function generateWork(svc: Services, spec: GenerateSpec): JobWork {
  const { input, usage, uses12 } = spec;
  const n = input.n ?? 1;
  const deps = generateDeps(svc, spec, recordDepsFor(svc, spec.caller));
  return async ({ signal, begin, onQueued, onProgress, giveBack }) => {
    const batch = await generateImages(input, { ...deps, signal, onStart: begin, onQueued, onProgress });
    await giveBack(batch.failed, n);
    return generateBody(input, batch, refunded(usage, batch.failed), uses12);
  };
}

function enhanceWork(svc: Services, spec: EnhanceSpec): JobWork {
  const { input, usage } = spec;
  const deps = enhanceDeps(svc, spec, recordDepsFor(svc, spec.caller));
  return async ({ signal, begin, onQueued, onProgress }) =>
    enhanceBody(input, await enhanceImage(input, { ...deps, signal, onStart: begin, onQueued, onProgress }), usage);
}
