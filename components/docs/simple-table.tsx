// A plain, accessible reference table for the limits, errors and headers sections.
import type { ReactNode } from "react";

export type TableRow = { key: string; cells: ReactNode[] };

export const mono = (s: string) => <code className="font-mono text-[13px] whitespace-nowrap">{s}</code>;
type Props = { caption: string; head: string[]; rows: TableRow[]; testId?: string };

export function SimpleTable({ caption, head, rows, testId }: Props) {
  return (
    <section
      className="overflow-x-auto rounded-xl border border-stone-200 dark:border-stone-800"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus so keyboards can scroll it (axe scrollable-region-focusable).
      tabIndex={0}
      aria-label={caption}
    >
      <table className="w-full sm:min-w-[32rem] text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="max-sm:hidden bg-stone-100 text-xs tracking-wide text-stone-700 uppercase dark:bg-stone-800/60 dark:text-stone-300">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="px-3 py-2">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-stone-200 dark:divide-stone-800">
          {rows.map((row) => (
            <tr key={row.key} className="align-top max-sm:block max-sm:px-3 max-sm:py-2">
              {row.cells.map((cell, j) => (
                <td
                  key={head[j]}
                  data-label={j > 0 ? `${head[j]}: ` : undefined}
                  className="px-3 py-2 max-sm:block max-sm:px-0 max-sm:py-0.5 max-sm:before:font-semibold max-sm:before:content-[attr(data-label)] first:font-medium text-stone-700 dark:text-stone-300"
                >
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
