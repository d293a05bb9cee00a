// The current result: the image, what made it, and Download / Copy link / Enhance this; with empty and loading states.
"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { ExpiryNote } from "@/components/ui/expiry-note";
import { PreviewBadge } from "@/components/ui/preview-badge";
import { Spinner } from "@/components/ui/spinner";
import { panel, secondaryButton } from "@/components/ui/styles";
import type { HistoryItem } from "@/lib/client/history";
import { useElapsed } from "@/lib/client/use-elapsed";

const FRAME: Record<string, string> = { "1:1": "aspect-square", "16:9": "aspect-video", "9:16": "aspect-[9/16]" };

type Props = {
  item: HistoryItem | null;
  startedAt: number | null;
  ratio: string;
  /** Shown while busy in place of the elapsed-time line: the job's place in line, stage and Cancel. */
  progress?: ReactNode;
};

function Placeholder({
  ratio,
  startedAt,
  progress,
}: {
  ratio: string;
  startedAt: number | null;
  progress?: ReactNode;
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
          <p className="mt-1">Write a prompt, pick a model, style and shape, then press Generate.</p>
        </div>
      )}
    </div>
  );
}

export function ResultPanel({ item, startedAt, ratio, progress }: Props) {
  return (
    <section aria-labelledby="result-heading" className={`${panel} p-3 sm:p-4`}>
      <h2 id="result-heading" className="sr-only">
        Result
      </h2>
      {!item || startedAt !== null ? (
        <Placeholder
          ratio={startedAt !== null ? ratio : (item?.ratio ?? ratio)}
          startedAt={startedAt}
          progress={progress}
        />
      ) : (
        <figure data-testid="result">
          <div className="bg-checker overflow-hidden rounded-xl">
            {/* eslint-disable-next-line @next/next/no-img-element -- CDN images are already final PNGs */}
            <img
              src={item.url}
              alt={`Generated image: ${item.prompt}`}
              width={item.width}
              height={item.height}
              className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
              data-testid="result-image"
            />
          </div>
          <figcaption className="mt-3 space-y-2">
            <p className="line-clamp-3 text-sm text-stone-800 dark:text-stone-200">{item.prompt}</p>
            <p className="flex flex-wrap items-center gap-1.5 text-xs text-stone-600 dark:text-stone-400">
              <span className="font-mono">{item.model}</span>
              <span aria-hidden="true">·</span>
              <span>{item.style}</span>
              <span aria-hidden="true">·</span>
              <span>{item.ratio}</span>
              <span aria-hidden="true">·</span>
              <span className="tabular-nums">
                {item.width}×{item.height}
              </span>
              {!item.ai && <PreviewBadge engine={item.engine} />}
            </p>
            <ExpiryNote expiresAt={item.expiresAt} />
          </figcaption>
          <div className="mt-3 flex flex-wrap gap-2">
            <a href={item.url} download={`darkroom-${item.id}.png`} className={secondaryButton} data-testid="download">
              Download
            </a>
            <CopyButton text={item.url} label="Copy link" copiedLabel="Link copied" />
            <Link href={`/enhance?src=${encodeURIComponent(item.url)}`} className={secondaryButton}>
              Enhance this
            </Link>
          </div>
        </figure>
      )}
    </section>
  );
}
