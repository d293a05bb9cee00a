// The enhance page's history of results in this browser: load, add, delete (with the image's delete token), clear.
"use client";
import { useCallback, useEffect, useState } from "react";
import { type EnhanceHistoryItem, loadEnhanceHistory, saveEnhanceHistory } from "@/lib/client/history";
import { deleteImageCall } from "@/lib/client/images";
import type { EnhanceResponse } from "@/lib/schemas/enhance";

/** The history entry of a finished enhancement. */
export function historyItemOf(data: EnhanceResponse, fileName: string): EnhanceHistoryItem {
  return {
    id: data.id,
    url: data.url,
    originalSize: data.original_size,
    enhancedSize: data.enhanced_size,
    strength: data.strength,
    scale: data.scale,
    model: data.model,
    engine: data.engine,
    fileName,
    createdAt: new Date().toISOString(),
    expiresAt: data.expires_at,
    deleteToken: data.delete_token,
  };
}

/** `onDeleted` hears each image deleted (or already gone), so the page can drop it from view. */
export function useEnhanceHistory(onDeleted: (id: string) => void) {
  const [items, setItems] = useState<EnhanceHistoryItem[]>([]);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setItems(loadEnhanceHistory()), []);

  const add = useCallback((item: EnhanceHistoryItem) => {
    setItems((h) => saveEnhanceHistory([item, ...h.filter((x) => x.id !== item.id)]));
  }, []);

  async function remove(item: EnhanceHistoryItem) {
    if (deleting || !item.deleteToken) return;
    setDeleting(item.id);
    setError(null);
    const res = await deleteImageCall(item.id, { deleteToken: item.deleteToken });
    setDeleting(null);
    // Already gone (expired, or deleted elsewhere) is as good as deleted.
    if (res.ok || res.error.status === 404) {
      setItems((h) => saveEnhanceHistory(h.filter((x) => x.id !== item.id)));
      onDeleted(item.id);
    } else {
      setError(`Couldn't delete that image: ${res.error.message}`);
    }
  }

  const clear = () => setItems(saveEnhanceHistory([]));
  return { items, deleting, error, add, remove, clear };
}
