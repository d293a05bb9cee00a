// A pasted Pro key's images, listed by the server (GET /api/images), so history follows the key across devices.
"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import type { HistoryItem } from "./history";
import { historyItemOf, listImagesCall, loadProKey, saveProKey } from "./images";

export type KeyLibrary = {
  key: string | null;
  items: HistoryItem[];
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  use: (key: string) => void;
  forget: () => void;
  loadMore: () => void;
  /** After a generation with the key, or a delete: keep the list in step without reloading it. */
  prepend: (item: HistoryItem) => void;
  remove: (id: string) => void;
};

export function useKeyLibrary(): KeyLibrary {
  const [key, setKey] = useState<string | null>(null);
  const [items, setItems] = useState<HistoryItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A newer key (or forgetting it) wins over a page still loading for the older one.
  const generation = useRef(0);

  const load = useCallback(async (forKey: string, after: string | null) => {
    const seq = generation.current;
    setLoading(true);
    const res = await listImagesCall(forKey, after);
    if (seq !== generation.current) return;
    setLoading(false);
    if (!res.ok) {
      if (res.error.status === 401) {
        generation.current++;
        saveProKey(null);
        setKey(null);
        setItems([]);
        setError("That key was not accepted: it is unknown or revoked.");
      } else {
        setError(res.error.message);
      }
      return;
    }
    const page = res.data.images.map(historyItemOf).filter((i): i is HistoryItem => i !== null);
    setItems((old) => (after ? [...old, ...page.filter((p) => !old.some((o) => o.id === p.id))] : page));
    setCursor(res.data.next_cursor);
    setError(null);
  }, []);

  const use = useCallback(
    (next: string) => {
      generation.current++;
      saveProKey(next);
      setKey(next);
      setItems([]);
      setCursor(null);
      void load(next, null);
    },
    [load],
  );

  useEffect(() => {
    const saved = loadProKey();
    if (saved) use(saved);
  }, [use]);

  return {
    key,
    items,
    hasMore: cursor !== null,
    loading,
    error,
    use,
    forget: () => {
      generation.current++;
      saveProKey(null);
      setKey(null);
      setItems([]);
      setCursor(null);
      setError(null);
      setLoading(false);
    },
    loadMore: () => {
      if (key && cursor && !loading) void load(key, cursor);
    },
    prepend: (item) => setItems((old) => [item, ...old.filter((o) => o.id !== item.id)]),
    remove: (id) => setItems((old) => old.filter((o) => o.id !== id)),
  };
}
