// The signed-in console: overview charts, the waitlist, keys and the audit log as tabs, sign-out, and sign-out
// everywhere (every console session ends on the server, on every browser).
"use client";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { secondaryButton } from "@/components/ui/styles";
import { adminApi } from "@/lib/client/admin-api";
import { AuditPanel } from "./audit-panel";
import { formatWhen } from "./format";
import { KeysPanel } from "./keys-panel";
import { OverviewPanel } from "./overview-panel";
import { WaitlistPanel } from "./waitlist-panel";

const TABS = [
  { id: "overview", label: "Overview" },
  { id: "waitlist", label: "Waitlist" },
  { id: "keys", label: "Keys" },
  { id: "audit", label: "Audit log" },
] as const;
type TabId = (typeof TABS)[number]["id"];

export function AdminConsole({ expiresAt, mailEnabled }: { expiresAt: string; mailEnabled: boolean }) {
  const router = useRouter();
  const [tab, setTab] = useState<TabId>("overview");
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  useEffect(() => {
    const fromHash = TABS.find((t) => `#${t.id}` === window.location.hash);
    if (fromHash) setTab(fromHash.id);
  }, []);

  const select = (id: TabId, focus = false) => {
    setTab(id);
    window.history.replaceState(null, "", `#${id}`);
    if (focus) tabRefs.current[id]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (e.key === "Home") select(TABS[0].id, true);
    else if (e.key === "End") select(TABS[TABS.length - 1].id, true);
    else if (step) select(TABS[(i + step + TABS.length) % TABS.length].id, true);
    else return;
    e.preventDefault();
  };

  async function signOut() {
    await adminApi.signOut();
    router.refresh();
  }

  async function signOutEverywhere() {
    if (!window.confirm("End every console session, on every browser, this one included?")) return;
    await adminApi.signOutEverywhere();
    router.refresh();
  }

  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Operators&apos; console</h1>
          <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">Signed in until {formatWhen(expiresAt)}.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <button type="button" className={secondaryButton} onClick={signOutEverywhere}>
            Sign out everywhere
          </button>
          <button type="button" className={secondaryButton} onClick={signOut}>
            Sign out
          </button>
        </div>
      </div>
      <div
        role="tablist"
        aria-label="Console sections"
        className="mt-6 flex gap-1 overflow-x-auto border-b border-stone-200 dark:border-stone-800"
        onKeyDown={onKeyDown}
      >
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => select(t.id)}
            className="-mb-px shrink-0 border-b-2 border-transparent px-3 py-2 text-sm font-medium whitespace-nowrap text-stone-600 hover:text-stone-900 aria-selected:border-safelight-600 aria-selected:text-stone-950 dark:text-stone-400 dark:hover:text-white dark:aria-selected:border-safelight-300 dark:aria-selected:text-white"
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="pt-6">
        {tab === "overview" && <OverviewPanel />}
        {tab === "waitlist" && <WaitlistPanel mailEnabled={mailEnabled} />}
        {tab === "keys" && <KeysPanel mailEnabled={mailEnabled} />}
        {tab === "audit" && <AuditPanel />}
      </div>
    </div>
  );
}
