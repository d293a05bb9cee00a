// Sizes of the upload and the enhanced image, the engine that made it (labelled when it is not AI, or generative),
// and the Download button.
"use client";
import { GenerativeBadge } from "@/components/ui/generative-badge";
import { PreviewBadge } from "@/components/ui/preview-badge";
import { secondaryButton } from "@/components/ui/styles";
import { extensionOf } from "@/lib/client/output-format";
import type { EnhanceResponse } from "@/lib/schemas/enhance";

type Props = {
  result: EnhanceResponse;
  fileName: string;
  /** The photo as chosen, when the browser resized it: the server only ever saw the smaller copy. */
  resizedFrom?: { width: number; height: number };
};

export function EnhanceResult({ result, fileName, resizedFrom }: Props) {
  const base = fileName.replace(/\.[^.]+$/, "") || "image";
  const ext = extensionOf(result.url);
  return (
    <div className="mt-4 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center sm:justify-between">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm" data-testid="sizes">
        <dt className="text-stone-600 dark:text-stone-400">{resizedFrom ? "Uploaded (resized)" : "Original"}</dt>
        <dt className="text-stone-600 dark:text-stone-400">Enhanced ({result.scale}×)</dt>
        <dd>
          <span className="font-mono font-semibold tabular-nums" data-testid="original-size">
            {result.original_size.replace("x", " × ")}
          </span>
          {resizedFrom && (
            <span
              className="block text-xs whitespace-nowrap text-stone-600 dark:text-stone-400"
              data-testid="resized-from"
            >
              from your {resizedFrom.width} × {resizedFrom.height}
            </span>
          )}
        </dd>
        <dd className="font-mono font-semibold tabular-nums" data-testid="enhanced-size">
          {result.enhanced_size.replace("x", " × ")}
        </dd>
      </dl>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-stone-600 dark:text-stone-400" data-testid="result-engine">
          Made by <span className="font-mono">{result.engine}</span>
        </span>
        {!result.ai && <PreviewBadge engine={result.engine} />}
        {result.generative && <GenerativeBadge />}
        <a
          href={result.url}
          download={`${base}-enhanced-${result.scale}x.${ext}`}
          className={secondaryButton}
          data-testid="download"
        >
          Download {ext === "jpg" ? "JPEG" : ext.toUpperCase()}
        </a>
      </div>
    </div>
  );
}
