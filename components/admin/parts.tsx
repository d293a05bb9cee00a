// Small pieces the console's panels share: a status badge and a notice line.
import type { ReactNode } from "react";

const BADGE: Record<string, string> = {
  pending: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-100",
  invited: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-100",
  declined: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200",
  active: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-100",
  revoked: "bg-red-100 text-red-900 dark:bg-red-900/50 dark:text-red-100",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-semibold ${BADGE[status] ?? BADGE.declined}`}>
      {status}
    </span>
  );
}

export function Notice({ tone, children }: { tone: "error" | "info"; children: ReactNode }) {
  return (
    <p
      role={tone === "error" ? "alert" : "status"}
      className={`rounded-lg px-3 py-2 text-sm ${tone === "error" ? "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-100" : "bg-stone-100 text-stone-800 dark:bg-stone-900 dark:text-stone-200"}`}
    >
      {children}
    </p>
  );
}

/** A table that scrolls sideways on narrow screens, named, and focusable so keyboards can scroll it. */
export function ScrollRegion({
  label,
  children,
  className = "",
}: {
  label: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus so keyboards can scroll it (axe scrollable-region-focusable).
      tabIndex={0}
      className={`relative overflow-x-auto ${className}`}
    >
      {children}
    </section>
  );
}

/** A data table's head: one row of column headings, in the compact style of the overview's tables. */
export function HeadRow({ headings }: { headings: readonly string[] }) {
  return (
    <thead className="text-stone-700 dark:text-stone-300">
      <tr>
        {headings.map((h) => (
          <th key={h} scope="col" className="py-2 pr-3 font-semibold">
            {h}
          </th>
        ))}
      </tr>
    </thead>
  );
}
