// DELETE /api/images/{id} – deletes an image and its record: by the owning Pro key, or by anyone with its
// X-Delete-Token. Anything else is 404 not_found, so an image's existence is never revealed.
import { enforceCallGuard } from "@/lib/api/call-guard";
import { readImageId } from "@/lib/api/images";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { deleteImage } from "@/lib/images/library";
import { ApiError } from "@/lib/schemas/api-error";
import type { ImageDeleteResponse } from "@/lib/schemas/images";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Uses no daily quota; counts on the per-minute status guard, like the other library and account calls.
const remove = withApi("status", async ({ req, caller, svc }) => {
  await enforceCallGuard(svc.statusGuard, svc.buckets.statusGuard, caller, "image library");
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

/**
 * The delete token is a credential of its own: a request that carries one and no key needs no X-Requested-With,
 * and is counted like a Free caller on its address. A key, when sent, is still verified (401 if bad).
 */
export function DELETE(req: Request): Promise<Response> {
  if (req.headers.has("x-delete-token") && !req.headers.has("authorization")) {
    const headers = new Headers(req.headers);
    headers.set("x-requested-with", "XMLHttpRequest");
    return remove(new Request(req, { headers }));
  }
  return remove(req);
}

export const { GET, POST, PUT, PATCH } = rejectOtherMethods(["DELETE"]);
