// The session history strip: the last 24 results in this browser, each with its prompt, model, style and ratio.
"use client";
import { HISTORY_MAX, type HistoryItem } from "@/lib/client/history";

type Props = {
  items: HistoryItem[];
  currentId: string | null;
  onSelect: (item: HistoryItem) => void;
  onClear: () => void;
};

export function HistoryStrip({ items, currentId, onSelect, onClear }: Props) {
  return (
    <section aria-labelledby="history-heading" className="mt-8">
      <div className="flex items-baseline justify-between gap-2">
        <h2 id="history-heading" className="text-base font-semibold">
          Session history{" "}
          <span className="text-sm font-normal text-stone-600 dark:text-stone-400">
            ({items.length} of {HISTORY_MAX})
          </span>
        </h2>
        {items.length > 0 && (
          <button
            type="button"
            onClick={onClear}
            className="rounded text-sm font-medium text-stone-600 underline underline-offset-2 hover:text-stone-900 dark:text-stone-400 dark:hover:text-white"
          >
            Clear history
          </button>
        )}
      </div>
      {items.length === 0 ? (
        <p className="mt-2 rounded-xl border border-dashed border-stone-300 p-4 text-sm text-stone-600 dark:border-stone-700 dark:text-stone-400">
          Your last {HISTORY_MAX} images will be kept here, in this browser only.
        </p>
      ) : (
        <ol className="mt-2 flex snap-x gap-3 overflow-x-auto pb-2" data-testid="history">
          {items.map((item) => (
            <li key={item.id} className="w-36 shrink-0 snap-start sm:w-40">
              <button
                type="button"
                onClick={() => onSelect(item)}
                aria-current={item.id === currentId ? "true" : undefined}
                className="group block w-full rounded-lg border border-stone-200 bg-white p-1.5 text-left hover:border-stone-400 aria-[current=true]:border-safelight-600 aria-[current=true]:ring-2 aria-[current=true]:ring-safelight-600/30 dark:border-stone-800 dark:bg-stone-900 dark:hover:border-stone-600 dark:aria-[current=true]:border-safelight-400"
              >
                <span className="block aspect-square overflow-hidden rounded-md bg-stone-200 dark:bg-stone-800">
                  {/* eslint-disable-next-line @next/next/no-img-element -- CDN thumbnails */}
                  <img src={item.url} alt="" loading="lazy" className="h-full w-full object-cover" />
                </span>
                <span className="mt-1.5 line-clamp-2 text-xs font-medium text-stone-900 dark:text-stone-100">
                  {item.prompt}
                </span>
                <span className="mt-0.5 block truncate text-[11px] text-stone-600 dark:text-stone-400">
                  {item.model} · {item.style} · {item.ratio}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
