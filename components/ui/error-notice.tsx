// Shows an API error in friendly words with the one next step that helps (waitlist, retry or rephrase).
"use client";
import Link from "next/link";
import type { ClientError, Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { useNow } from "@/lib/client/use-now";
import { secondaryButton, textLink } from "./styles";

type Props = {
  error: ClientError;
  quota: Quota | null;
  /** "generations" or "enhancements", for the limit wording. */
  noun: string;
  onRetry?: () => void;
};

export function ErrorNotice({ error, quota, noun, onRetry }: Props) {
  const now = useNow(30_000);
  const copy = writeErrorCopy(error, { quota, now, noun });
  return (
    <div
      data-testid="error-notice"
      data-code={error.code}
      className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
    >
      <p className="font-semibold">{copy.title}</p>
      <p className="mt-1">{copy.detail}</p>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        {copy.action === "waitlist" && (
          <Link href="/waitlist" className={textLink}>
            Join the Pro waitlist
          </Link>
        )}
        {copy.action === "retry" && onRetry && (
          <button type="button" className={secondaryButton} onClick={onRetry}>
            Retry
          </button>
        )}
        {error.requestId && (
          <span className="text-xs text-red-800 dark:text-red-200">
            Reference: <code className="font-mono">{error.requestId}</code>
          </span>
        )}
      </div>
    </div>
  );
}
