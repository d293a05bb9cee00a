// The studio's Edit mode: the image to edit (uploaded, pasted, dropped, or handed over by an "Edit" button), the mask
// painter over it, and the strength slider.
"use client";
import type { RefObject } from "react";
import { DropZone } from "@/components/enhance/drop-zone";
import { Spinner } from "@/components/ui/spinner";
import { panel, secondaryButton } from "@/components/ui/styles";
import type { PickedImage } from "@/lib/client/picked-image";
import type { UploadLimits } from "@/lib/client/upload-rules";
import { type MaskHandle, MaskPainter } from "./mask-painter";
import { StrengthSlider } from "./strength-slider";

type Props = {
  source: PickedImage | null;
  /** What the source is called: its file name, or the prompt of the result it came from. */
  sourceLabel: string;
  onFile: (file: File) => void;
  onRemove: () => void;
  limits: UploadLimits;
  /** A file is being read or resized, or a result fetched for editing. */
  loading: boolean;
  error: string | null;
  busy: boolean;
  strength: number;
  onStrength: (v: number) => void;
  maskRef: RefObject<MaskHandle | null>;
};

export function EditPanel(props: Props) {
  const { source, sourceLabel, onFile, onRemove, limits, loading, error, busy, strength, onStrength, maskRef } = props;
  return (
    <section aria-labelledby="edit-heading" className={`${panel} space-y-4 p-3 sm:p-4`} data-testid="edit-panel">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="edit-heading" className="text-base font-semibold">
          Image to edit
        </h2>
        {source && (
          <button type="button" className={`${secondaryButton} px-2 py-1 text-xs`} onClick={onRemove} disabled={busy}>
            Remove image
          </button>
        )}
      </div>
      {source && (
        <>
          <p className="truncate text-xs text-stone-600 dark:text-stone-400" data-testid="edit-source-caption">
            <span className="font-medium text-stone-800 dark:text-stone-200">{sourceLabel}</span>
            {source.width > 0 && ` · ${source.width}×${source.height}`}
            {source.resized && " · resized in your browser"}
          </p>
          <MaskPainter
            imageUrl={source.previewUrl}
            width={source.width}
            height={source.height}
            alt={`Image to edit: ${sourceLabel}`}
            handleRef={maskRef}
            disabled={busy}
          />
          <StrengthSlider value={strength} onChange={onStrength} />
        </>
      )}
      <DropZone onFile={onFile} disabled={busy} compact={source !== null} limits={limits} />
      {loading && (
        <p className="flex items-center gap-2 text-sm text-stone-700 dark:text-stone-300" data-testid="edit-loading">
          <Spinner /> Loading the image…
        </p>
      )}
      {error && (
        <p
          className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
          role="alert"
          data-testid="file-error"
        >
          {error}
        </p>
      )}
    </section>
  );
}
