// Says in words, under a result, that it was not made by an AI model; for edits, what the preview transform did.
import type { HistoryItem } from "@/lib/client/history";

export function NotAiNote({ item }: { item: HistoryItem }) {
  if (item.ai) return null;
  return (
    <p
      className="rounded-lg border border-amber-300 bg-amber-50 p-2.5 text-xs text-amber-950 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-100"
      data-testid="not-ai-note"
    >
      <strong className="font-semibold">Not AI.</strong>{" "}
      {item.edit
        ? `This edit comes from the built-in preview engine, not an AI model: it blends a simple scene drawn from your prompt's words into ${item.edit.masked ? "the area you painted" : "the whole picture"}, as far as the strength says, so the flow works with no engine set up.`
        : "This image comes from the built-in preview renderer, which draws a simple scene from your prompt's words without an AI model."}{" "}
      Configure an engine to get AI results.
    </p>
  );
}
