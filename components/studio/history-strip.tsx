// The history strip: the last 24 results in this browser (or, with a Pro key, the key's images from any device),
// each with its prompt, settings and expiry, and Reuse settings / Edit / Delete.
"use client";
import type { ReactNode } from "react";
import { ClearHistoryButton } from "@/components/ui/clear-history-button";
import { ExpiryNote } from "@/components/ui/expiry-note";
import { Spinner } from "@/components/ui/spinner";
import { secondaryButton } from "@/components/ui/styles";
import { HISTORY_MAX, type HistoryItem } from "@/lib/client/history";

type Props = {
  items: HistoryItem[];
  /** The images the result panel shows (one, or a request's variants). */
  currentIds: string[];
  /** "browser": this browser's history; "key": the pasted Pro key's images, listed by the server. */
  source: "browser" | "key";
  onSelect: (item: HistoryItem) => void;
  onReuse: (item: HistoryItem) => void;
  /** Opens the image in Edit mode. */
  onEdit: (item: HistoryItem) => void;
  onDelete: (item: HistoryItem) => void;
  /** The id being deleted, if any. */
  deleting: string | null;
  onClear: () => void;
  /** Key mode: more pages to load. */
  onLoadMore?: () => void;
  loading?: boolean;
  /** The Pro key form, shown under the heading. */
  keyForm: ReactNode;
};

const smallButton = `${secondaryButton} px-2 py-1 text-xs`;

/** One history item: its thumbnail (which shows it), prompt and settings, expiry, and its actions. */
function HistoryCard({ item, props }: { item: HistoryItem; props: Props }) {
  const { currentIds, source, onSelect, onReuse, onEdit, onDelete, deleting } = props;
  const canDelete = source === "key" || Boolean(item.deleteToken);
  return (
    <li className="flex w-44 shrink-0 snap-start flex-col rounded-lg border border-stone-200 bg-white p-1.5 has-[[aria-current=true]]:border-safelight-600 has-[[aria-current=true]]:ring-2 has-[[aria-current=true]]:ring-safelight-600/30 sm:w-48 dark:border-stone-800 dark:bg-stone-900 dark:has-[[aria-current=true]]:border-safelight-400">
      <button
        type="button"
        onClick={() => onSelect(item)}
        aria-current={currentIds.includes(item.id) ? "true" : undefined}
        className="group block w-full rounded-md text-left"
      >
        <span className="block aspect-square overflow-hidden rounded-md bg-stone-200 dark:bg-stone-800">
          {/* eslint-disable-next-line @next/next/no-img-element -- CDN thumbnails */}
          <img src={item.url} alt="" loading="lazy" className="h-full w-full object-cover" />
        </span>
        <span className="mt-1.5 line-clamp-2 text-xs font-medium text-stone-900 dark:text-stone-100">
          {item.prompt}
        </span>
        <span className="mt-0.5 line-clamp-2 text-[11px] text-stone-600 dark:text-stone-400">
          {item.model} · {item.style} · {item.edit ? `edit ${item.edit.strength}` : item.ratio}
          {item.seed !== undefined && ` · seed ${item.seed}`}
        </span>
      </button>
      <ExpiryNote expiresAt={item.expiresAt} />
      <div className="mt-1.5 flex flex-wrap gap-1.5">
        <button
          type="button"
          className={smallButton}
          onClick={() => onReuse(item)}
          aria-label={`Reuse settings: ${item.prompt}`}
          data-testid="reuse"
        >
          Reuse settings
        </button>
        <button
          type="button"
          className={smallButton}
          onClick={() => onEdit(item)}
          aria-label={`Edit image: ${item.prompt}`}
          data-testid="history-edit"
        >
          Edit
        </button>
        {canDelete && (
          <button
            type="button"
            className={`${smallButton} text-red-800 dark:text-red-200`}
            onClick={() => onDelete(item)}
            disabled={deleting !== null}
            aria-label={`Delete image: ${item.prompt}`}
            data-testid="delete"
          >
            {deleting === item.id ? <Spinner /> : "Delete"}
          </button>
        )}
      </div>
    </li>
  );
}

export function HistoryStrip(props: Props) {
  const { items, source, onClear, onLoadMore, loading } = props;
  return (
    <section aria-labelledby="history-heading" className="mt-8">
      <div className="flex items-baseline justify-between gap-2">
        <h2 id="history-heading" className="text-base font-semibold">
          {source === "key" ? (
            "Your images"
          ) : (
            <>
              Session history{" "}
              <span className="text-sm font-normal text-stone-600 dark:text-stone-400">
                ({items.length} of {HISTORY_MAX})
              </span>
            </>
          )}
        </h2>
        {source === "browser" && items.length > 0 && <ClearHistoryButton onClear={onClear} />}
      </div>
      <div className="mt-2">{props.keyForm}</div>
      {items.length === 0 ? (
        <p className="mt-2 rounded-xl border border-dashed border-stone-300 p-4 text-sm text-stone-600 dark:border-stone-700 dark:text-stone-400">
          {loading
            ? "Loading your images…"
            : source === "key"
              ? "This key has no images yet."
              : `Your last ${HISTORY_MAX} images will be kept here, in this browser only.`}
        </p>
      ) : (
        <ol className="mt-2 flex snap-x gap-3 overflow-x-auto pb-2" data-testid="history">
          {items.map((item) => (
            <HistoryCard key={item.id} item={item} props={props} />
          ))}
        </ol>
      )}
      {source === "key" && onLoadMore && (
        <button type="button" className={`${secondaryButton} mt-2`} onClick={onLoadMore} disabled={loading}>
          {loading ? <Spinner /> : null} Load more
        </button>
      )}
    </section>
  );
}
