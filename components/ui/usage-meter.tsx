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
  const percent = quota.limit > 0 ? Math.min(100, (used / quota.limit) * 100) : 100;
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
      <div
        className="mt-2 h-1.5 overflow-hidden rounded-full bg-stone-200 dark:bg-stone-800"
        role="meter"
        aria-label={`Free ${noun} used today`}
        aria-valuemin={0}
        aria-valuemax={quota.limit}
        aria-valuenow={used}
        aria-valuetext={`${used} of ${quota.limit} used`}
      >
        <div
          className={`h-full rounded-full ${empty ? "bg-red-600 dark:bg-red-400" : "bg-safelight-500"}`}
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}
