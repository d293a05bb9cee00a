// "Expires in 29 days" under a history item: when the server deletes the image (IMAGE_RETENTION_DAYS).
"use client";
import { formatExpiry } from "@/lib/client/time";
import { useNow } from "@/lib/client/use-now";

export function ExpiryNote({ expiresAt }: { expiresAt?: string | null }) {
  const now = useNow(60_000);
  const text = formatExpiry(expiresAt, now);
  if (!text) return null;
  return (
    <span
      className="block truncate text-[11px] text-stone-600 dark:text-stone-400"
      title={expiresAt ? new Date(expiresAt).toLocaleString() : undefined}
      data-testid="expiry"
    >
      {text}
    </span>
  );
}
