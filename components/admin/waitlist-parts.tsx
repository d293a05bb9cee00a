// The waitlist panel's parts: the search and status filter, the table's head and rows, and the pager.
"use client";
import { Spinner } from "@/components/ui/spinner";
import { primaryButton, secondaryButton, textInput } from "@/components/ui/styles";
import type { WaitlistEntry } from "@/lib/client/admin-api";
import { formatWhen } from "./format";
import { StatusBadge } from "./parts";
import { PAGE, type WaitlistDecisions, type WaitlistView } from "./use-waitlist";

const FILTERS = [
  { id: "", label: "All" },
  { id: "pending", label: "Pending" },
  { id: "invited", label: "Invited" },
  { id: "declined", label: "Declined" },
] as const;

export function WaitlistFilters({ view }: { view: WaitlistView }) {
  const { search, setSearch, status, setStatus, setOffset, setSelected, page } = view;
  return (
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
  );
}

export function WaitlistHead(props: { allSelected: boolean; pending: WaitlistEntry[]; onSelectAll: () => void }) {
  const { allSelected, pending } = props;
  return (
    <thead className="bg-stone-100 text-stone-700 dark:bg-stone-900 dark:text-stone-300">
      <tr>
        <th scope="col" className="w-10 px-3 py-2">
          <input
            type="checkbox"
            aria-label="Select every pending entry on this page"
            checked={allSelected}
            disabled={pending.length === 0}
            onChange={props.onSelectAll}
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
  );
}

export function WaitlistRow(props: {
  e: WaitlistEntry;
  selected: boolean;
  onToggle: () => void;
  decisions: WaitlistDecisions;
}) {
  const { e, decisions } = props;
  const { busy, approve, decline } = decisions;
  return (
    <tr className="border-t border-stone-200 align-top dark:border-stone-800" data-email={e.email}>
      <td className="px-3 py-2">
        {e.status === "pending" && (
          <input
            type="checkbox"
            aria-label={`Select ${e.email}`}
            checked={props.selected}
            onChange={props.onToggle}
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
  );
}

export function WaitlistPager({ view, shown }: { view: WaitlistView; shown: number }) {
  const { page, offset, setOffset } = view;
  if (!page || page.total === 0) return null;
  return (
    <nav aria-label="Waitlist pages" className="flex items-center justify-between gap-3 text-sm">
      <span>
        {offset + 1}–{offset + shown} of {page.total}
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
  );
}
