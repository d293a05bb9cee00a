// DELETE /api/images/{id} – deletes an image and its record: by the owning Pro key, or by anyone with its
// X-Delete-Token. Anything else is 404 not_found, so an image's existence is never revealed.
import { readImageId } from "@/lib/features/images/answer";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { deleteImage } from "@/lib/images/library";
import { ApiError } from "@/lib/schemas/api-error";
import type { ImageDeleteResponse } from "@/lib/schemas/images";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Uses no daily quota; counts on the per-minute status guard, like the other library and account calls. The delete
 * token is a credential of its own: a request that carries one and no key needs no X-Requested-With, and is counted
 * like a Free caller on its address. A key, when sent, is still verified (401 if bad).
 */
const POLICY = {
  quota: "status",
  accepts: ["key", "browser", "deleteToken"],
  guard: { bucket: "statusGuard", what: "image library" },
} as const;

export const DELETE = withApi(POLICY, async ({ req, caller, svc }) => {
  const id = readImageId(req);
  if (!id) throw new ApiError("not_found", "No image with this id.");

  const deleteToken = req.headers.get("x-delete-token")?.trim() || undefined;
  await deleteImage(
    id,
    { owner: caller.keyId, deleteToken },
    { images: svc.images, storage: svc.storage, retentionDays: svc.config.images.retentionDays },
  );
  const body: ImageDeleteResponse = { success: true, id };
  return body;
});

export const { GET, POST, PUT, PATCH } = rejectOtherMethods(["DELETE"]);
