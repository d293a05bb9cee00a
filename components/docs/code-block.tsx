// A copyable code sample, named by its label; the pre is focusable so keyboard users can scroll long lines.
import { CopyButton } from "@/components/ui/copy-button";

export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <figure
      aria-label={label}
      className="relative rounded-xl bg-stone-900 text-stone-100 dark:bg-black/60 dark:ring-1 dark:ring-stone-800"
    >
      <div className="flex items-center justify-between border-b border-stone-700/70 px-3 py-1.5">
        <span className="text-xs font-medium text-stone-300">{label}</span>
        <CopyButton
          text={code}
          label="Copy"
          className="rounded-md px-2 py-1 text-xs font-medium text-stone-200 hover:bg-stone-700 hover:text-white"
        />
      </div>
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll, and a scrollable region must take focus (axe scrollable-region-focusable).
        tabIndex={0}
        className="overflow-x-auto p-3 text-[13px] leading-relaxed"
      >
        <code className="font-mono">{code}</code>
      </pre>
    </figure>
  );
}
