// Says plainly when an image comes from a built-in, non-AI engine rather than an AI model.
const LABELS: Record<string, string> = {
  preview: "Preview renderer · not AI",
  sharp: "Classic upscaler · not AI",
  lanczos3: "Plain resize · not AI",
  "lanczos3+sharpen": "Resize and sharpen · not AI",
};

/** Short forms for tight spots (a cell of a 2-column grid on a phone); still plainly "not AI". */
const SHORT: Record<string, string> = {
  preview: "Preview · not AI",
  sharp: "Classic · not AI",
  lanczos3: "Resize · not AI",
  "lanczos3+sharpen": "Resize · not AI",
};

export function PreviewBadge({ engine, short = false }: { engine: string; short?: boolean }) {
  return (
    <span
      data-testid="not-ai-badge"
      className="inline-flex items-center gap-1 rounded-full border border-amber-300 bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
    >
      <span aria-hidden="true">◐</span>
      {(short ? SHORT[engine] : LABELS[engine]) ?? `${engine} engine · not AI`}
    </span>
  );
}
