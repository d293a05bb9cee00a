// Says plainly that the browser resized the photo before upload, so nobody is surprised by the smaller original.
import type { ResizeNote } from "@/lib/client/upload-copy";

export function ResizeNotice({ note }: { note: ResizeNote }) {
  return (
    <div
      className="flex items-start gap-3 rounded-lg border border-safelight-300 bg-safelight-50 p-3 text-sm text-stone-900 dark:border-safelight-700 dark:bg-safelight-700/20 dark:text-stone-100"
      data-testid="resize-notice"
    >
      <svg
        viewBox="0 0 24 24"
        className="mt-0.5 size-5 shrink-0 text-safelight-700 dark:text-safelight-300"
        aria-hidden="true"
        focusable="false"
      >
        <path
          fill="none"
          stroke="currentColor"
          strokeWidth="1.75"
          strokeLinecap="round"
          strokeLinejoin="round"
          d="M4 14v6h6M20 10V4h-6M4 20l7-7M20 4l-7 7"
        />
      </svg>
      <p className="min-w-0 break-words">{note.message}</p>
    </div>
  );
}
