// "Clear history" under a page's history: forgets the list kept in this browser, never the images themselves.
export function ClearHistoryButton({ onClear }: { onClear: () => void }) {
  return (
    <button
      type="button"
      onClick={onClear}
      title="Forgets the list in this browser; the images stay until they expire or you delete them."
      className="rounded text-sm font-medium text-stone-600 underline underline-offset-2 hover:text-stone-900 dark:text-stone-400 dark:hover:text-white"
    >
      Clear history
    </button>
  );
}
