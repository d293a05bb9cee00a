// The contract's order for uploads: what needs no body, then the quota, then the body. A caller with nothing left is
// refused before it sends its body, so it holds no upload slot and no memory.
import { checkUpload, type Upload, type UploadFiles } from "@/lib/http/read-upload";
import type { RouteContext } from "@/lib/http/with-api";

/** What reading an upload in order needs from the route: the request, the caller, its quota and Idempotency-Key. */
export type UploadContext = Pick<RouteContext, "req" | "svc" | "caller" | "quota" | "idempotency">;

/**
 * Reads a multipart upload in the contract's order: its shape (400, 413 by declared size), then the caller's quota
 * (429 before the body is sent), then the body within the caller's share and deadlines (429, 503, 408).
 * A request whose Idempotency-Key already has a record may be the replay of an answer already paid for, which costs
 * nothing: its body is read even then and settled after. A new key is no way past the peek.
 */
export async function readUploadInOrder(at: UploadContext, files: UploadFiles = "image"): Promise<Upload> {
  const form = checkUpload(at.req, at.svc.config.upload.maxBytes, files);
  if (!(await at.idempotency.recorded())) await at.quota.assertLeft(1);
  return form.read(at.svc.uploads, at.caller);
}
