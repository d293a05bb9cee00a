// GET /api/images – a Pro key's own images, newest first, a page at a time.
import { encodeCursor, imageJsonOf, parseImageListQuery } from "@/lib/features/images/answer";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { listImages } from "@/lib/images/library";
import type { ImageListResponse } from "@/lib/schemas/images";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Reads of the library use no daily quota; they count on the per-minute status guard, like account and usage.
const POLICY = {
  quota: "status",
  proOnly: "Listing images",
  guard: { bucket: "statusGuard", what: "image library" },
} as const;

export const GET = withApi(POLICY, async ({ req, caller, svc }) => {
  const query = parseImageListQuery(req);

  const retentionDays = svc.config.images.retentionDays;
  // The policy lets only Pro keys in.
  const page = await listImages(caller.keyId as string, query, { images: svc.images, retentionDays });

  const body: ImageListResponse = {
    success: true,
    images: page.records.map((r) => imageJsonOf(r, retentionDays)),
    next_cursor: page.next === null ? null : encodeCursor(page.next),
  };
  return body;
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
