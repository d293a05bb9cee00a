// "3 of 5 free generations left today · resets in 5 h 12 m": the daily quota at a glance, refreshed after every call.
"use client";
import type { Quota } from "@/lib/client/api";
import { formatDuration } from "@/lib/client/time";
import { useNow } from "@/lib/client/use-now";

type Props = { quota: Quota | null; noun: string; plan?: string };

export function UsageMeter({ quota, noun, plan = "free" }: Props) {
  const now = useNow(30_000);
  if (!quota) {
    return (
      <div
        className="h-12 animate-pulse rounded-xl bg-stone-200/70 dark:bg-stone-800"
        aria-hidden="true"
        data-testid="usage-meter-loading"
      />
    );
  }
  const used = Math.max(0, quota.limit - quota.remaining);
  const empty = quota.remaining <= 0;
  const left = `${quota.remaining} of ${quota.limit} ${plan === "free" ? "free " : ""}${noun} left today`;
  const resets = `resets in ${formatDuration(quota.resetAtMs - now)}`;
  return (
    <div className="rounded-xl border border-stone-200 bg-white px-4 py-3 dark:border-stone-800 dark:bg-stone-900">
      <p
        className="text-sm font-medium text-stone-800 dark:text-stone-200"
        data-testid="usage-meter"
        aria-live="polite"
      >
        <span className={empty ? "font-semibold text-red-700 dark:text-red-300" : ""}>{left}</span>{" "}
        <span className="whitespace-nowrap text-stone-600 max-sm:block dark:text-stone-400">
          <span className="max-sm:hidden">· </span>
          {resets}
        </span>
      </p>
      <meter
        className="quota-meter mt-2"
        data-empty={empty || undefined}
        aria-label={`Free ${noun} used today`}
        min={0}
        max={Math.max(1, quota.limit)}
        // A limit of 0 means nothing is left: shown full, as when the quota is used up.
        value={quota.limit > 0 ? used : 1}
        aria-valuetext={`${used} of ${quota.limit} used`}
      />
    </div>
  );
}
