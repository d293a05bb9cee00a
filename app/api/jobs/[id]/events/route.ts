// GET /api/jobs/{id}/events – the job's state as server-sent events, from any instance, until it finishes.
import { findOwnJob } from "@/lib/features/jobs/access";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { jobEvents } from "@/lib/jobs/events";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel a stream lives at most this long; clients reconnect and get the current state first.
export const maxDuration = 300;

/** Job reads use no daily quota; the per-minute job guard bounds polling. */
const JOB_READ = { quota: "status", guard: { bucket: "jobReadGuard", what: "job" } } as const;

type Params = { params: Promise<{ id: string }> };

export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return withApi(JOB_READ, async ({ caller, svc, signal }) => {
    const job = await findOwnJob(svc, caller, id);
    // Capped per caller and per job (429 past it); the slot frees when the stream ends, however it ends.
    const close = svc.streams.open(caller.identity, job.id);
    return new Response(jobEvents(svc.jobWatch, job, signal, close), {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store, no-transform",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      },
    });
  })(req);
}

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
