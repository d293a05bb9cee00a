// Shares of a whole as labelled horizontal bars (e.g. requests per model): easier to read than a pie, and the
// figures are written out.
import { CYCLE } from "./palette";

type Props = { title: string; items: { label: string; value: number }[]; testId?: string; empty?: string };

export function ShareBars({ title, items, testId, empty = "No requests yet." }: Props) {
  const total = items.reduce((sum, item) => sum + item.value, 0);
  const sorted = [...items].filter((i) => i.value > 0).sort((a, b) => b.value - a.value);
  return (
    <figure className="min-w-0" data-testid={testId}>
      <figcaption className="text-sm font-semibold">{title}</figcaption>
      {sorted.length === 0 ? (
        <p className="mt-2 text-sm text-stone-600 dark:text-stone-400">{empty}</p>
      ) : (
        <ul className="mt-3 space-y-2.5">
          {sorted.map((item, i) => {
            const share = item.value / total;
            return (
              <li key={item.label}>
                <div className="flex justify-between gap-3 text-sm">
                  <span className="truncate font-mono">{item.label}</span>
                  <span className="shrink-0 text-stone-700 tabular-nums dark:text-stone-300">
                    {item.value} · {Math.round(share * 100)}%
                  </span>
                </div>
                <svg
                  viewBox="0 0 100 4"
                  preserveAspectRatio="none"
                  className="mt-1 block h-2 w-full"
                  aria-hidden="true"
                >
                  <rect width={100} height={4} rx={2} className="fill-stone-200 dark:fill-stone-800" />
                  <rect width={Math.max(1, share * 100)} height={4} rx={2} className={CYCLE[i % CYCLE.length].fill} />
                </svg>
              </li>
            );
          })}
        </ul>
      )}
    </figure>
  );
}
