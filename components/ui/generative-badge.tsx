// Says plainly when an image's detail was invented by a generative model, not recovered from the photo.
export function GenerativeBadge({ short = false }: { short?: boolean }) {
  return (
    <span
      data-testid="generative-badge"
      className="inline-flex items-center gap-1 rounded-full border border-violet-300 bg-violet-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-violet-900 dark:border-violet-700 dark:bg-violet-950 dark:text-violet-200"
    >
      <span aria-hidden="true">✦</span>
      {short ? "Generative" : "Generative · invents detail"}
    </span>
  );
}
