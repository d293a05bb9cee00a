// A flow's answer as an /api route returns it. The upload the flow read is held until the work is done: by the
// route while it runs here, by the job once one is accepted (the function is then kept alive until it settles).
import { keepAlive } from "@/lib/http/keep-alive";
import type { FlowAnswer } from "./flow-call";

export async function routeAnswer(
  run: () => Promise<FlowAnswer>,
  release: () => void,
): Promise<Response | Record<string, unknown>> {
  let heldByJob = false;
  try {
    const answer = await run();
    if (!("job" in answer)) return "replay" in answer ? answer.replay : answer.body;
    heldByJob = true;
    keepAlive(answer.job.done.finally(release));
    return answer.job.response;
  } finally {
    if (!heldByJob) release();
  }
}
