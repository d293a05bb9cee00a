// Copies text (a link, a curl command), falling back to a selection-based copy where the Clipboard API is unavailable.
"use client";
import { useState } from "react";
import { secondaryButton } from "./styles";

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "fixed -left-[9999px]";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

type Props = { text: string; label: string; copiedLabel?: string; className?: string };

export function CopyButton({ text, label, copiedLabel = "Copied", className = secondaryButton }: Props) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        className={className}
        onClick={async () => {
          setState((await copyText(text)) ? "copied" : "failed");
          window.setTimeout(() => setState("idle"), 2500);
        }}
      >
        {state === "copied" ? copiedLabel : label}
      </button>
      <span className="sr-only" aria-live="polite">
        {state === "copied" ? `${copiedLabel}.` : state === "failed" ? "Could not copy." : ""}
      </span>
    </>
  );
}
