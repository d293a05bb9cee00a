// POST /api/enhance – enhance and upscale an uploaded photo, synchronously or as an async job.

import { runEnhance } from "@/lib/features/enhance/flow";
import { parseEnhance, servedEnhanceModes } from "@/lib/features/enhance/parse";
import { prefersAsync } from "@/lib/features/jobs/async";
import { routeAnswer } from "@/lib/features/jobs/route-answer";
import { readUploadInOrder } from "@/lib/http/read-upload";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for accepted jobs run after the response; ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi("enhance", async (ctx) => {
  const { req, svc, caller, quota, idempotency } = ctx;
  const served = servedEnhanceModes(svc.config);
  const upload = parseEnhance(await readUploadInOrder({ req, svc, caller, quota, idempotency }), served);
  return routeAnswer(() => runEnhance({ ...ctx, prefersAsync: prefersAsync(req) }, upload), upload.release);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
