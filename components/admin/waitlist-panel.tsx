// The waitlist: search, filter by status, page through, approve (one or several) or decline, export as CSV.
"use client";
import { Spinner } from "@/components/ui/spinner";
import { primaryButton, textLink } from "@/components/ui/styles";
import { IssuedKeyPanel } from "./issued-key";
import { Notice, ScrollRegion } from "./parts";
import { useWaitlistDecisions, useWaitlistPage } from "./use-waitlist";
import { WaitlistFilters, WaitlistHead, WaitlistPager, WaitlistRow } from "./waitlist-parts";

export function WaitlistPanel({ mailEnabled }: { mailEnabled: boolean }) {
  const view = useWaitlistPage();
  const decisions = useWaitlistDecisions(view);
  const { status, query, page, selected, setSelected, message } = view;
  const { issued, setIssued, busy, approveSelected } = decisions;
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
      <WaitlistFilters view={view} />

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
          <WaitlistHead
            allSelected={allSelected}
            pending={pending}
            onSelectAll={() => setSelected(allSelected ? new Set() : new Set(pending.map((e) => e.id)))}
          />
          <tbody>
            {entries.map((e) => (
              <WaitlistRow
                key={e.id}
                e={e}
                selected={selected.has(e.id)}
                onToggle={() => toggle(e.id)}
                decisions={decisions}
              />
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <WaitlistPager view={view} shown={entries.length} />
    </div>
  );
}
