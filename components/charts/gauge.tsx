// One "used of limit" figure with a bar, for queue depth and the free caps: a native meter for assistive tech, drawn
// as SVG so it looks the same in every browser and theme.
type Props = { label: string; used: number; limit: number; detail?: string; testId?: string };

export function Gauge({ label, used, limit, detail, testId }: Props) {
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  const tone =
    share >= 0.9
      ? "fill-red-600 dark:fill-red-400"
      : share >= 0.7
        ? "fill-amber-500 dark:fill-amber-300"
        : "fill-emerald-600 dark:fill-emerald-400";
  return (
    <div data-testid={testId}>
      <div className="flex justify-between gap-3 text-sm">
        <span className="font-medium">{label}</span>
        <span className="text-stone-700 tabular-nums dark:text-stone-300">
          {used.toLocaleString("en-US")} / {limit.toLocaleString("en-US")}
        </span>
      </div>
      <meter className="sr-only" aria-label={label} min={0} max={Math.max(1, limit)} value={used}>
        {used} of {limit}
      </meter>
      <svg viewBox="0 0 100 4" preserveAspectRatio="none" className="mt-1 block h-2 w-full" aria-hidden="true">
        <rect width={100} height={4} rx={2} className="fill-stone-200 dark:fill-stone-800" />
        {used > 0 && <rect width={Math.max(1, share * 100)} height={4} rx={2} className={tone} />}
      </svg>
      {detail && <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">{detail}</p>}
    </div>
  );
}
