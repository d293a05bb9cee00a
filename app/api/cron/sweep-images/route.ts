// GET /api/cron/sweep-images – the retention sweep where no server.ts runs it (Vercel): Vercel Cron calls this with
// Authorization: Bearer $CRON_SECRET. Without CRON_SECRET, or with a wrong token, it is an unknown path (404).
import crypto from "node:crypto";
import { errorResponse, newRequestId } from "@/lib/api/with-api";
import { sweepImages } from "@/lib/images/sweep";
import { ApiError } from "@/lib/schemas/api-error";
import { getServices } from "@/lib/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export async function GET(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    const secret = svc.config.images.cronSecret;
    const presented = Buffer.from(req.headers.get("authorization") ?? "");
    const expected = Buffer.from(`Bearer ${secret ?? ""}`);
    if (!secret || presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) {
      throw new ApiError("not_found", "No such API endpoint. See /docs.");
    }
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
