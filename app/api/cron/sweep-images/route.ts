// GET /api/cron/sweep-images – the retention sweep where no server.ts runs it (Vercel): Vercel Cron calls this with
// Authorization: Bearer $CRON_SECRET. Without CRON_SECRET, or with a wrong token, it is an unknown path (404). The
// secret is compared as a digest (nothing about it leaks, not even its length), and wrong ones count per address
// in a sliding hour: past ten, further wrong ones get 429, while the right one is still served.

import { attemptSecret } from "@/lib/console/sign-in";
import { identityOfIp, readClientIp } from "@/lib/http/identify";
import { errorResponse, newRequestId } from "@/lib/http/with-api";
import { sweepImages } from "@/lib/images/sweep";
import { type Bucket, secondsUntil } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import { getServices } from "@/lib/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Ten wrong cron secrets per sliding hour per address. */
const CRON_ATTEMPTS: Bucket = { name: "cron-secret", limit: 10, windowMs: 60 * 60 * 1000 };

export async function GET(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    const secret = svc.config.images.cronSecret;
    if (!secret) throw new ApiError("not_found", "No such API endpoint. See /docs.");
    const presented = /^Bearer +(\S+) *$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    const identity = identityOfIp(readClientIp(req, svc));
    const outcome = await attemptSecret(svc, "cron", CRON_ATTEMPTS, identity, presented, secret);
    if (!outcome.ok && outcome.locked) {
      throw new ApiError("rate_limited", "Too many wrong cron secrets from this address. Try again later.", {
        retryAfter: secondsUntil(outcome.retryAtMs),
      });
    }
    if (!outcome.ok) throw new ApiError("not_found", "No such API endpoint. See /docs.");
    // Inside the function's time limit, with room to answer.
    const result = await sweepImages(
      { images: svc.images, storage: svc.storage, retentionDays: svc.config.images.retentionDays },
      { maxRunMs: 200_000 },
    );
    return Response.json({ success: true, ...result }, { headers: { "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, requestId);
  }
}
