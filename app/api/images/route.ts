// GET /api/images – a Pro key's own images, newest first, a page at a time.
import { enforceCallGuard } from "@/lib/api/call-guard";
import { encodeCursor, imageJsonOf, parseImageListQuery } from "@/lib/api/images";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { listImages } from "@/lib/images/library";
import { ApiError } from "@/lib/schemas/api-error";
import type { ImageListResponse } from "@/lib/schemas/images";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Reads of the library use no daily quota; they count on the per-minute status guard, like account and usage.
export const GET = withApi("status", async ({ req, caller, svc }) => {
  if (!caller.keyId) {
    throw new ApiError("unauthorized", "Listing images needs a Pro key: send Authorization: Bearer <key>.");
  }
  await enforceCallGuard(svc.statusGuard, svc.buckets.statusGuard, caller, "image library");
  const query = parseImageListQuery(req);

  const retentionDays = svc.config.images.retentionDays;
  const page = await listImages(caller.keyId, query, { images: svc.images, retentionDays });

  const body: ImageListResponse = {
    success: true,
    images: page.records.map((r) => imageJsonOf(r, retentionDays)),
    next_cursor: page.next === null ? null : encodeCursor(page.next),
  };
  return body;
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
