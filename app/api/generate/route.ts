// POST /api/generate – generate images from a prompt (and, in 1.2, from an image and mask), sync or as a job.

import { runGenerate } from "@/lib/features/generate/flow";
import { isMultipart, parseGenerateForm, parseGenerateJson } from "@/lib/features/generate/parse";
import { prefersAsync } from "@/lib/features/jobs/async";
import { routeAnswer } from "@/lib/features/jobs/route-answer";
import { readUploadInOrder } from "@/lib/http/read-upload";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for a provider chain (GENERATION_TIMEOUT_MS per route), and for accepted jobs run after the
// response; ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("generate", async (ctx) => {
  const { req, svc, caller, quota, idempotency } = ctx;
  // An upload's shape is checked and the caller's quota peeked before its body is read.
  const submission = isMultipart(req)
    ? parseGenerateForm(await readUploadInOrder({ req, svc, caller, quota, idempotency }, "image+mask"))
    : await parseGenerateJson(req);
  return routeAnswer(() => runGenerate({ ...ctx, prefersAsync: prefersAsync(req) }, submission), submission.release);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
