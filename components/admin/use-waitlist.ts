// The waitlist panel's state: the page shown (status filter, search, offset), the selection, and the decisions.
"use client";
import { useCallback, useEffect, useState } from "react";
import { adminApi, type IssuedKey, type WaitlistEntry, type WaitlistPage } from "@/lib/client/admin-api";

export const PAGE = 25;

/** The page of entries shown: by status, by a search that waits for a pause in typing, from an offset. */
export function useWaitlistPage() {
  const [status, setStatus] = useState<string>("pending");
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<WaitlistPage | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);

  const params = useCallback(() => {
    const p = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (status) p.set("status", status);
    if (query) p.set("q", query);
    return p;
  }, [status, query, offset]);

  const load = useCallback(async () => {
    const res = await adminApi.waitlist(params());
    if (res.ok) setPage(res.data);
    else setMessage({ tone: "error", text: res.error.message });
  }, [params]);

  useEffect(() => {
    void load();
  }, [load]);

  // Searching waits for a pause in typing, then starts from the first page.
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setQuery(search.trim());
      setOffset(0);
    }, 250);
    return () => window.clearTimeout(timer);
  }, [search]);

  return {
    status,
    setStatus,
    search,
    setSearch,
    query,
    offset,
    setOffset,
    page,
    selected,
    setSelected,
    message,
    setMessage,
    load,
  };
}

export type WaitlistView = ReturnType<typeof useWaitlistPage>;

/** Approve (one or the selected), decline; issued keys are kept to show once. */
export function useWaitlistDecisions(view: WaitlistView) {
  const { setMessage, load, selected, setSelected } = view;
  const [issued, setIssued] = useState<IssuedKey[]>([]);
  const [busy, setBusy] = useState<string | null>(null);

  async function approve(entry: WaitlistEntry) {
    setBusy(entry.id);
    setMessage(null);
    const res = await adminApi.approve(entry.id);
    setBusy(null);
    if (res.ok) setIssued((list) => [res.data, ...list]);
    else setMessage({ tone: "error", text: `${entry.email}: ${res.error.message}` });
    await load();
  }

  async function decline(entry: WaitlistEntry) {
    setBusy(entry.id);
    setMessage(null);
    const res = await adminApi.decline(entry.id);
    setBusy(null);
    setMessage(
      res.ok
        ? { tone: "info", text: `Declined ${entry.email}.` }
        : { tone: "error", text: `${entry.email}: ${res.error.message}` },
    );
    await load();
  }

  async function approveSelected() {
    const ids = [...selected];
    setBusy("bulk");
    setMessage(null);
    const res = await adminApi.approveMany(ids);
    setBusy(null);
    setSelected(new Set());
    if (!res.ok) {
      setMessage({ tone: "error", text: res.error.message });
    } else {
      const made = res.data.results.flatMap((r) => (r.ok ? [r as IssuedKey] : []));
      const failed = res.data.results.flatMap((r) => (r.ok ? [] : [r.error.message]));
      setIssued((list) => [...made, ...list]);
      if (failed.length) setMessage({ tone: "error", text: `${failed.length} not approved: ${failed.join(" ")}` });
    }
    await load();
  }

  return { issued, setIssued, busy, approve, decline, approveSelected };
}

export type WaitlistDecisions = ReturnType<typeof useWaitlistDecisions>;
