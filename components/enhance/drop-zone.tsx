// Upload by drag and drop, file picker or paste; the visible label doubles as the picker button.
"use client";
import { useEffect, useState } from "react";
import { ACCEPT_ATTRIBUTE, byteBaseFor, formatBytes, megapixels, type UploadLimits } from "@/lib/client/upload-rules";

type Props = { onFile: (file: File) => void; limits: UploadLimits; disabled?: boolean; compact?: boolean };

export function DropZone({ onFile, limits, disabled = false, compact = false }: Props) {
  const [over, setOver] = useState(false);

  useEffect(() => {
    if (disabled) return;
    const onPaste = (e: ClipboardEvent) => {
      const file = Array.from(e.clipboardData?.files ?? [])[0];
      if (file) {
        e.preventDefault();
        onFile(file);
      }
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [onFile, disabled]);

  return (
    <section
      aria-label="Image upload"
      onDragOver={(e) => {
        e.preventDefault();
        if (!disabled) setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const file = e.dataTransfer.files[0];
        if (file && !disabled) onFile(file);
      }}
      data-testid="drop-zone"
      className={`relative flex flex-col items-center justify-center gap-2 rounded-2xl border-2 border-dashed text-center ${compact ? "p-4" : "px-4 py-10 sm:py-14"} ${over ? "border-safelight-600 bg-safelight-50 dark:border-safelight-400 dark:bg-safelight-700/20" : "border-stone-300 bg-white dark:border-stone-700 dark:bg-stone-900"}`}
    >
      <input
        id="image-file"
        type="file"
        accept={ACCEPT_ATTRIBUTE}
        disabled={disabled}
        className="peer sr-only"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) onFile(file);
          e.target.value = "";
        }}
      />
      {!compact && (
        <svg viewBox="0 0 24 24" className="size-10 text-stone-400" aria-hidden="true" focusable="false">
          <path
            fill="none"
            stroke="currentColor"
            strokeWidth="1.5"
            strokeLinecap="round"
            strokeLinejoin="round"
            d="M12 16V4m0 0-4 4m4-4 4 4M4 16v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2"
          />
        </svg>
      )}
      <label
        htmlFor="image-file"
        className="cursor-pointer rounded-lg bg-stone-900 px-4 py-2 text-sm font-semibold text-white peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-safelight-600 hover:bg-stone-700 dark:bg-safelight-400 dark:text-stone-950 dark:peer-focus-visible:outline-safelight-300 dark:hover:bg-safelight-300"
      >
        {compact ? "Choose another image" : "Choose an image"}
      </label>
      <p className="text-sm text-stone-600 dark:text-stone-400">
        {compact ? "or drop / paste one here" : "or drag it here, or paste it (Ctrl+V)"}
      </p>
      {!compact && (
        <p className="text-xs text-stone-600 dark:text-stone-400" data-testid="upload-limits">
          PNG, JPEG, WebP, AVIF or GIF · photos over {formatBytes(limits.maxBytes, byteBaseFor(limits.maxBytes))} or{" "}
          {megapixels(limits.maxPixels)} megapixels are resized in your browser
        </p>
      )}
    </section>
  );
}
