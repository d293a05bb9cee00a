// Says plainly when an image comes from a built-in, non-AI engine rather than an AI model.
const LABELS: Record<string, string> = {
  preview: "Preview renderer · not AI",
  sharp: "Classic upscaler · not AI",
};

export function PreviewBadge({ engine }: { engine: string }) {
  return (
    <span
      data-testid="not-ai-badge"
      className="inline-flex items-center gap-1 rounded-full border border-amber-300 bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
    >
      <span aria-hidden="true">◐</span>
      {LABELS[engine] ?? `${engine} engine · not AI`}
    </span>
  );
}
