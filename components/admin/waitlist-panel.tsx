// The waitlist: search, filter by status, page through, approve (one or several) or decline, export as CSV.
"use client";
import { useCallback, useEffect, useState } from "react";
import { Spinner } from "@/components/ui/spinner";
import { primaryButton, secondaryButton, textInput, textLink } from "@/components/ui/styles";
import { adminApi, type IssuedKey, type WaitlistEntry, type WaitlistPage } from "@/lib/client/admin-api";
import { formatWhen } from "./format";
import { IssuedKeyPanel } from "./issued-key";
import { Notice, ScrollRegion, StatusBadge } from "./parts";

const PAGE = 25;
const FILTERS = [
  { id: "", label: "All" },
  { id: "pending", label: "Pending" },
  { id: "invited", label: "Invited" },
  { id: "declined", label: "Declined" },
] as const;

export function WaitlistPanel({ mailEnabled }: { mailEnabled: boolean }) {
  const [status, setStatus] = useState<string>("pending");
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<WaitlistPage | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [issued, setIssued] = useState<IssuedKey[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
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

  const entries = page?.entries ?? [];
  const pending = entries.filter((e) => e.status === "pending");
  const allSelected = pending.length > 0 && pending.every((e) => selected.has(e.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const csv = new URLSearchParams({ format: "csv", ...(status && { status }), ...(query && { q: query }) });

  return (
    <div className="space-y-5">
      {issued.map((k) => (
        <IssuedKeyPanel key={k.key_id} issued={k} onDone={() => setIssued((list) => list.filter((x) => x !== k))} />
      ))}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0 sm:w-80">
          <label htmlFor="waitlist-search" className="text-sm font-semibold">
            Search email or use case
          </label>
          <input
            id="waitlist-search"
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className={`${textInput} mt-1`}
          />
        </div>
        <fieldset className="flex flex-wrap gap-1">
          <legend className="sr-only">Status</legend>
          {FILTERS.map((f) => (
            <label
              key={f.id}
              className="cursor-pointer rounded-lg border border-stone-300 px-3 py-1.5 text-sm font-medium has-checked:border-stone-900 has-checked:bg-stone-900 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:has-checked:border-safelight-300 dark:has-checked:bg-safelight-300 dark:has-checked:text-stone-950"
            >
              <input
                type="radio"
                name="waitlist-status"
                value={f.id}
                checked={status === f.id}
                onChange={() => {
                  setStatus(f.id);
                  setOffset(0);
                  setSelected(new Set());
                }}
                className="sr-only"
              />
              {f.label}
              {f.id && page ? ` (${page.counts[f.id]})` : ""}
            </label>
          ))}
        </fieldset>
      </div>

      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          className={primaryButton}
          disabled={selected.size === 0 || busy !== null}
          onClick={approveSelected}
        >
          {busy === "bulk" && <Spinner />}
          Approve selected ({selected.size})
        </button>
        <a href={`/api/admin/waitlist?${csv}`} download className={textLink}>
          Export CSV
        </a>
        {!mailEnabled && (
          <span className="text-sm text-stone-600 dark:text-stone-400">
            Email is off: approvals show a message to send by hand.
          </span>
        )}
      </div>
      {message && <Notice tone={message.tone}>{message.text}</Notice>}
      {page && entries.length === 0 && (
        <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="waitlist-empty">
          No signups match.
        </p>
      )}

      <ScrollRegion label="Waitlist signups" className="rounded-xl border border-stone-200 dark:border-stone-800">
        <table className="w-full min-w-[40rem] text-left text-sm" data-testid="waitlist-table">
          <caption className="sr-only">Waitlist signups</caption>
          <thead className="bg-stone-100 text-stone-700 dark:bg-stone-900 dark:text-stone-300">
            <tr>
              <th scope="col" className="w-10 px-3 py-2">
                <input
                  type="checkbox"
                  aria-label="Select every pending entry on this page"
                  checked={allSelected}
                  disabled={pending.length === 0}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(pending.map((e) => e.id)))}
                  className="size-4 accent-safelight-600"
                />
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                Email
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                Use case
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                Signed up
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                Status
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} className="border-t border-stone-200 align-top dark:border-stone-800" data-email={e.email}>
                <td className="px-3 py-2">
                  {e.status === "pending" && (
                    <input
                      type="checkbox"
                      aria-label={`Select ${e.email}`}
                      checked={selected.has(e.id)}
                      onChange={() => toggle(e.id)}
                      className="size-4 accent-safelight-600"
                    />
                  )}
                </td>
                <td className="min-w-48 px-3 py-2 font-medium break-all">{e.email}</td>
                <td className="max-w-xs px-3 py-2 text-stone-700 dark:text-stone-300">{e.use_case ?? "—"}</td>
                <td className="px-3 py-2 whitespace-nowrap">{formatWhen(e.created_at)}</td>
                <td className="px-3 py-2">
                  <StatusBadge status={e.status} />
                </td>
                <td className="px-3 py-2">
                  <div className="flex justify-end gap-2">
                    {e.status !== "invited" && (
                      <button
                        type="button"
                        className={primaryButton}
                        disabled={busy !== null}
                        onClick={() => approve(e)}
                        aria-label={`Approve ${e.email}`}
                      >
                        {busy === e.id && <Spinner />}
                        Approve
                      </button>
                    )}
                    {e.status === "pending" && (
                      <button
                        type="button"
                        className={secondaryButton}
                        disabled={busy !== null}
                        onClick={() => decline(e)}
                        aria-label={`Decline ${e.email}`}
                      >
                        Decline
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {page && page.total > 0 && (
        <nav aria-label="Waitlist pages" className="flex items-center justify-between gap-3 text-sm">
          <span>
            {offset + 1}–{offset + entries.length} of {page.total}
          </span>
          <span className="flex gap-2">
            <button
              type="button"
              className={secondaryButton}
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              Previous
            </button>
            <button
              type="button"
              className={secondaryButton}
              disabled={page.next_offset === null}
              onClick={() => setOffset(page.next_offset ?? offset)}
            >
              Next
            </button>
          </span>
        </nav>
      )}
    </div>
  );
}
