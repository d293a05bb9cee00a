// One result's actions: Download (under the format's extension), Copy link, Edit this, Enhance this.
"use client";
import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";
import { secondaryButton } from "@/components/ui/styles";
import type { HistoryItem } from "@/lib/client/history";
import { extensionOf } from "@/lib/client/output-format";

type Props = { item: HistoryItem; onEdit: (item: HistoryItem) => void; compact?: boolean; label?: string };

export function ResultActions({ item, onEdit, compact = false, label }: Props) {
  const button = compact ? `${secondaryButton} px-2 py-1 text-xs` : secondaryButton;
  // In a grid every image has the same buttons; their names say which image they act on.
  const which = label ? ` ${label}` : "";
  return (
    <div className={`flex flex-wrap ${compact ? "gap-1.5" : "gap-2"}`}>
      <a
        href={item.url}
        download={`darkroom-${item.id}.${extensionOf(item.url)}`}
        className={button}
        aria-label={label ? `Download${which}` : undefined}
        data-testid="download"
      >
        Download
      </a>
      {!compact && <CopyButton text={item.url} label="Copy link" copiedLabel="Link copied" />}
      <button
        type="button"
        className={button}
        onClick={() => onEdit(item)}
        aria-label={label ? `Edit${which}` : undefined}
        data-testid="edit-result"
      >
        Edit
      </button>
      <Link
        href={`/enhance?src=${encodeURIComponent(item.url)}`}
        className={button}
        aria-label={label ? `Enhance${which}` : undefined}
      >
        {compact ? "Enhance" : "Enhance this"}
      </Link>
    </div>
  );
}
