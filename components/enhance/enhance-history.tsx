// The enhance page's history: the last 24 enhancements in this browser, with sizes, settings, expiry, Edit (in the studio)
// and Delete.
"use client";
import Link from "next/link";
import { ClearHistoryButton } from "@/components/ui/clear-history-button";
import { ExpiryNote } from "@/components/ui/expiry-note";
import { Spinner } from "@/components/ui/spinner";
import { secondaryButton } from "@/components/ui/styles";
import { type EnhanceHistoryItem, HISTORY_MAX } from "@/lib/client/history";

type Props = {
  items: EnhanceHistoryItem[];
  onDelete: (item: EnhanceHistoryItem) => void;
  deleting: string | null;
  onClear: () => void;
  error: string | null;
};

export function EnhanceHistory({ items, onDelete, deleting, onClear, error }: Props) {
  return (
    <section aria-labelledby="enhance-history-heading" className="mt-8">
      <div className="flex items-baseline justify-between gap-2">
        <h2 id="enhance-history-heading" className="text-base font-semibold">
          Your enhancements{" "}
          <span className="text-sm font-normal text-stone-600 dark:text-stone-400">
            ({items.length} of {HISTORY_MAX})
          </span>
        </h2>
        {items.length > 0 && <ClearHistoryButton onClear={onClear} />}
      </div>
      {error && (
        <p className="mt-1 text-sm font-medium text-red-700 dark:text-red-300" role="alert">
          {error}
        </p>
      )}
      {items.length === 0 ? (
        <p className="mt-2 rounded-xl border border-dashed border-stone-300 p-4 text-sm text-stone-600 dark:border-stone-700 dark:text-stone-400">
          Your last {HISTORY_MAX} enhanced images will be kept here, in this browser only.
        </p>
      ) : (
        <ol className="mt-2 flex snap-x gap-3 overflow-x-auto pb-2" data-testid="enhance-history">
          {items.map((item) => (
            <li
              key={item.id}
              className="flex w-40 shrink-0 snap-start flex-col rounded-lg border border-stone-200 bg-white p-1.5 sm:w-44 dark:border-stone-800 dark:bg-stone-900"
            >
              <a href={item.url} target="_blank" rel="noreferrer" className="block rounded-md">
                <span className="bg-checker block aspect-square overflow-hidden rounded-md">
                  {/* eslint-disable-next-line @next/next/no-img-element -- CDN thumbnails */}
                  <img
                    src={item.url}
                    alt={`Enhanced ${item.fileName || "image"}`}
                    loading="lazy"
                    className="h-full w-full object-cover"
                  />
                </span>
              </a>
              <span className="mt-1.5 truncate text-xs font-medium text-stone-900 dark:text-stone-100">
                {item.fileName || "Pasted image"}
              </span>
              <span className="block truncate text-[11px] tabular-nums text-stone-600 dark:text-stone-400">
                {item.originalSize.replace("x", "×")} → {item.enhancedSize.replace("x", "×")}
              </span>
              <span className="block truncate text-[11px] text-stone-600 dark:text-stone-400">
                {item.model} · strength {item.strength} · {item.scale}×
              </span>
              <ExpiryNote expiresAt={item.expiresAt} />
              <div className="mt-1.5 flex flex-wrap gap-1.5">
                <Link
                  href={`/?edit=${encodeURIComponent(item.url)}`}
                  className={`${secondaryButton} px-2 py-1 text-xs`}
                  aria-label={`Edit in the studio: ${item.fileName || "pasted image"}`}
                  data-testid="enhance-history-edit"
                >
                  Edit
                </Link>
                {item.deleteToken && (
                  <button
                    type="button"
                    className={`${secondaryButton} px-2 py-1 text-xs text-red-800 dark:text-red-200`}
                    onClick={() => onDelete(item)}
                    disabled={deleting !== null}
                    aria-label={`Delete enhanced image: ${item.fileName || "pasted image"}`}
                    data-testid="delete"
                  >
                    {deleting === item.id ? <Spinner /> : "Delete"}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
