// A stacked bar chart in plain SVG: one bar per day, one segment per series. Bars stretch to any width; the labels
// are HTML so they stay legible on phones; every bar has a tooltip, and the numbers are in a table below.
import type { SeriesColor } from "./palette";

export type Series = { key: string; label: string; color: SeriesColor; values: number[] };

type Props = {
  title: string;
  /** One label per bar (dates, YYYY-MM-DD). */
  labels: string[];
  series: Series[];
  testId?: string;
};

const BAR = 10;

/** A round maximum for the axis whose half is a whole number too: an even number up to 10, then 2 or 5 × 10ⁿ. */
function niceMax(n: number): number {
  if (n <= 10) return Math.max(2, n + (n % 2));
  const p = 10 ** Math.floor(Math.log10(n));
  return [2, 5, 10].map((m) => m * p).find((m) => m >= n) ?? 10 * p;
}

const short = (date: string) => date.slice(5);

/** The bars: grid lines at 0, half and max, and one stack per label with a tooltip per bar and per segment. */
function Bars({ labels, series, totals, max }: { labels: string[]; series: Series[]; totals: number[]; max: number }) {
  const width = labels.length * BAR;
  return (
    <svg
      viewBox={`0 0 ${width} 100`}
      preserveAspectRatio="none"
      className="block h-40 w-full overflow-visible"
      aria-hidden="true"
    >
      {[0, 50, 100].map((y) => (
        <line
          key={y}
          x1={0}
          x2={width}
          y1={y}
          y2={y}
          vectorEffect="non-scaling-stroke"
          className="stroke-stone-200 dark:stroke-stone-700"
          strokeWidth={1}
        />
      ))}
      {labels.map((label, i) => {
        let top = 100;
        return (
          <g key={label}>
            <title>{`${label}: ${totals[i]}`}</title>
            {series.map((s) => {
              const value = s.values[i] ?? 0;
              if (value === 0) return null;
              const h = (value / max) * 100;
              top -= h;
              return (
                <rect
                  key={s.key}
                  x={i * BAR + 1.5}
                  y={top}
                  width={BAR - 3}
                  height={h}
                  className={s.color.fill}
                  data-series={s.key}
                >
                  <title>{`${label} · ${s.label}: ${value}`}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
    </svg>
  );
}

/** The numbers behind the chart, in a table that opens on demand. */
function NumbersTable({ title, labels, series }: Pick<Props, "title" | "labels" | "series">) {
  return (
    <details className="mt-2 text-sm">
      <summary className="cursor-pointer text-stone-700 dark:text-stone-300">Show the numbers</summary>
      <div className="relative mt-2 max-h-64 overflow-auto">
        <table className="w-full text-left text-xs tabular-nums">
          <caption className="sr-only">{title}, per day</caption>
          <thead>
            <tr>
              <th scope="col" className="py-1 pr-3 font-semibold">
                Date
              </th>
              {series.map((s) => (
                <th key={s.key} scope="col" className="py-1 pr-3 font-semibold">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label} className="border-t border-stone-200 dark:border-stone-800">
                <th scope="row" className="py-1 pr-3 font-normal">
                  {label}
                </th>
                {series.map((s) => (
                  <td key={s.key} className="py-1 pr-3">
                    {s.values[i] ?? 0}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

export function StackedBars({ title, labels, series, testId }: Props) {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const id = `chart-${title.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <figure aria-labelledby={`${id}-title`} className="min-w-0" data-testid={testId}>
      <figcaption id={`${id}-title`} className="text-sm font-semibold">
        {title}
      </figcaption>
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-stone-700 dark:text-stone-300">
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span className={`inline-block size-3 rounded-sm ${s.color.swatch}`} aria-hidden="true" />
            {s.label}
          </li>
        ))}
      </ul>
      <div className="mt-2 flex gap-2">
        <div
          className="flex h-40 flex-col justify-between text-right text-xs text-stone-600 tabular-nums dark:text-stone-400"
          aria-hidden="true"
        >
          <span>{max}</span>
          <span>{max / 2}</span>
          <span>0</span>
        </div>
        <div className="min-w-0 flex-1">
          <Bars labels={labels} series={series} totals={totals} max={max} />
          <div className="mt-1 flex justify-between text-xs text-stone-600 tabular-nums dark:text-stone-400">
            <span>{labels[0] && short(labels[0])}</span>
            <span className="max-sm:hidden">
              {labels[Math.floor(labels.length / 2)] && short(labels[Math.floor(labels.length / 2)])}
            </span>
            <span>{labels.length > 0 && short(labels[labels.length - 1])}</span>
          </div>
        </div>
      </div>
      <NumbersTable title={title} labels={labels} series={series} />
    </figure>
  );
}
