// The current result: the image (or a grid of variants), what made it, and Download / Copy link / Edit / Enhance;
// with empty and loading states.
"use client";
import type { ReactNode } from "react";
import { ExpiryNote } from "@/components/ui/expiry-note";
import { PreviewBadge } from "@/components/ui/preview-badge";
import { Spinner } from "@/components/ui/spinner";
import { panel } from "@/components/ui/styles";
import type { HistoryItem } from "@/lib/client/history";
import { useElapsed } from "@/lib/client/use-elapsed";
import { NotAiNote } from "./not-ai-note";
import { ResultActions } from "./result-actions";

const FRAME: Record<string, string> = { "1:1": "aspect-square", "16:9": "aspect-video", "9:16": "aspect-[9/16]" };

type Props = {
  /** The latest request's images (one, or a grid of variants); empty before the first. */
  items: HistoryItem[];
  onEdit: (item: HistoryItem) => void;
  startedAt: number | null;
  ratio: string;
  /** Shown while busy in place of the elapsed-time line: the job's place in line, stage and Cancel. */
  progress?: ReactNode;
  /** What to do to get a result, shown while there is none. */
  emptyHint?: string;
};

const DEFAULT_HINT = "Write a prompt, pick a model, style and shape, then press Generate.";

function Placeholder({
  ratio,
  startedAt,
  progress,
  hint,
}: {
  ratio: string;
  startedAt: number | null;
  progress?: ReactNode;
  hint: string;
}) {
  const elapsed = useElapsed(startedAt);
  const busy = startedAt !== null;
  return (
    <div
      className={`mx-auto flex max-h-[70vh] w-full items-center justify-center rounded-xl border-2 border-dashed border-stone-300 text-center dark:border-stone-700 ${FRAME[ratio] ?? "aspect-square"} ${ratio === "9:16" ? "max-w-sm" : ""} ${busy ? "bg-stone-100 dark:bg-stone-800/60" : ""} ${busy && !progress ? "animate-pulse" : ""}`}
      data-testid={busy ? "result-loading" : "result-empty"}
    >
      {busy && progress ? (
        <div className="flex w-full justify-center px-4">
          <div className="w-full max-w-sm">{progress}</div>
        </div>
      ) : busy ? (
        <p className="flex items-center gap-2 text-sm font-medium text-stone-700 dark:text-stone-200">
          <Spinner className="size-5" /> Rendering your image…{" "}
          <span className="tabular-nums">{elapsed.toFixed(1)} s</span>
        </p>
      ) : (
        <div className="max-w-xs px-4 text-sm text-stone-600 dark:text-stone-400">
          <p className="font-medium text-stone-800 dark:text-stone-200">Your image will appear here</p>
          <p className="mt-1">{hint}</p>
        </div>
      )}
    </div>
  );
}

/** What made the image, in one line: model, style, shape or edit strength, size, and a "not AI" badge. */
function Facts({ item }: { item: HistoryItem }) {
  return (
    <p className="flex flex-wrap items-center gap-1.5 text-xs text-stone-600 dark:text-stone-400">
      <span className="font-mono">{item.model}</span>
      <span aria-hidden="true">·</span>
      <span>{item.style}</span>
      <span aria-hidden="true">·</span>
      <span>
        {item.edit ? `edit at strength ${item.edit.strength}${item.edit.masked ? ", masked" : ""}` : item.ratio}
      </span>
      <span aria-hidden="true">·</span>
      <span className="tabular-nums">
        {item.width}×{item.height}
      </span>
      {!item.ai && <PreviewBadge engine={item.engine} />}
    </p>
  );
}

function Single({ item, onEdit }: { item: HistoryItem; onEdit: (item: HistoryItem) => void }) {
  return (
    <figure data-testid="result">
      <div className="bg-checker overflow-hidden rounded-xl">
        <img
          src={item.url}
          alt={`${item.edit ? "Edited" : "Generated"} image: ${item.prompt}`}
          width={item.width}
          height={item.height}
          className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
          data-testid="result-image"
        />
      </div>
      <figcaption className="mt-3 space-y-2">
        <p className="line-clamp-3 text-sm text-stone-800 dark:text-stone-200">{item.prompt}</p>
        <Facts item={item} />
        <NotAiNote item={item} />
        <ExpiryNote expiresAt={item.expiresAt} />
      </figcaption>
      <div className="mt-3">
        <ResultActions item={item} onEdit={onEdit} />
      </div>
    </figure>
  );
}

/** Several variants from one request: a 2-column grid, each with its own actions, and the shared facts below. */
function Grid({ items, onEdit }: { items: HistoryItem[]; onEdit: (item: HistoryItem) => void }) {
  const first = items[0];
  return (
    <figure data-testid="result">
      <ul className="grid grid-cols-2 gap-2 sm:gap-3" data-testid="result-grid" aria-label={`${items.length} variants`}>
        {items.map((item, i) => (
          <li key={item.id} className="flex flex-col gap-1.5" data-testid="result-cell">
            <a href={item.url} target="_blank" rel="noreferrer" className="bg-checker block overflow-hidden rounded-lg">
              <img
                src={item.url}
                alt={`Variant ${i + 1} of ${items.length}: ${item.prompt}`}
                width={item.width}
                height={item.height}
                className="block h-auto w-full"
                data-testid="result-image"
              />
            </a>
            <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-[11px] text-stone-600 dark:text-stone-400">
              <span className="font-semibold text-stone-800 dark:text-stone-200">Variant {i + 1}</span>
              {item.seed !== undefined && <span className="font-mono">seed {item.seed}</span>}
              {!item.ai && <PreviewBadge engine={item.engine} short />}
            </p>
            <ResultActions item={item} onEdit={onEdit} compact label={`variant ${i + 1}`} />
          </li>
        ))}
      </ul>
      <figcaption className="mt-3 space-y-2">
        <p className="line-clamp-3 text-sm text-stone-800 dark:text-stone-200">{first.prompt}</p>
        <Facts item={first} />
        <NotAiNote item={first} />
        <ExpiryNote expiresAt={first.expiresAt} />
      </figcaption>
    </figure>
  );
}

export function ResultPanel({ items, startedAt, ratio, progress, onEdit, emptyHint = DEFAULT_HINT }: Props) {
  const first = items[0];
  return (
    <section aria-labelledby="result-heading" className={`${panel} p-3 sm:p-4`}>
      <h2 id="result-heading" className="sr-only">
        Result
      </h2>
      {!first || startedAt !== null ? (
        <Placeholder
          ratio={startedAt !== null ? ratio : (first?.ratio ?? ratio)}
          startedAt={startedAt}
          progress={progress}
          hint={emptyHint}
        />
      ) : items.length > 1 ? (
        <Grid items={items} onEdit={onEdit} />
      ) : (
        <Single item={first} onEdit={onEdit} />
      )}
    </section>
  );
}
