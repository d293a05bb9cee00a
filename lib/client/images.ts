// Browser calls to the image library: delete with a delete token or a Pro key, and a Pro key's list; plus where a
// pasted Pro key is kept (sessionStorage: this tab only, gone when it closes; never localStorage).
import type { ImageDeleteResponse, ImageJson, ImageListResponse } from "@/lib/schemas/images";
import { type ApiResult, callApi } from "./api";
import type { HistoryItem } from "./history";

export const PRO_KEY_SESSION = "darkroom.pro-key";

export function loadProKey(): string | null {
  try {
    return window.sessionStorage.getItem(PRO_KEY_SESSION);
  } catch {
    return null;
  }
}

export function saveProKey(key: string | null): void {
  try {
    if (key) window.sessionStorage.setItem(PRO_KEY_SESSION, key);
    else window.sessionStorage.removeItem(PRO_KEY_SESSION);
  } catch {
    /* storage unavailable: the key lives in memory for this page only */
  }
}

export const authHeader = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Deletes with the key when one is set (the image is then the key's), else with the image's delete token. */
export function deleteImageCall(
  id: string,
  auth: { key: string } | { deleteToken: string },
): Promise<ApiResult<ImageDeleteResponse>> {
  const headers = "key" in auth ? authHeader(auth.key) : { "X-Delete-Token": auth.deleteToken };
  return callApi<ImageDeleteResponse>(`/api/images/${encodeURIComponent(id)}`, { method: "DELETE", headers });
}

export function listImagesCall(key: string, cursor?: string | null): Promise<ApiResult<ImageListResponse>> {
  const query = new URLSearchParams({ limit: "24" });
  if (cursor) query.set("cursor", cursor);
  return callApi<ImageListResponse>(`/api/images?${query}`, { headers: authHeader(key) });
}

/** A listed generation as a studio history item (enhancements have no studio settings to reuse). */
export function historyItemOf(image: ImageJson): HistoryItem | null {
  if (image.kind !== "generate" || image.prompt === undefined) return null;
  return {
    id: image.id,
    url: image.url,
    prompt: image.prompt,
    model: image.model,
    style: image.style ?? "",
    ratio: image.ratio ?? "1:1",
    width: image.width,
    height: image.height,
    engine: image.engine ?? "",
    ai: image.ai ?? true,
    createdAt: image.created_at,
    seed: image.seed,
    expiresAt: image.expires_at,
  };
}
