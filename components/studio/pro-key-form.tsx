// Paste a Pro key to see that key's images from any device. The key stays in this tab's sessionStorage only.
"use client";
import { type FormEvent, useState } from "react";
import { secondaryButton, textInput } from "@/components/ui/styles";

type Props = { active: boolean; onUse: (key: string) => void; onForget: () => void };

export function ProKeyForm({ active, onUse, onForget }: Props) {
  const [value, setValue] = useState("");
  const [open, setOpen] = useState(false);

  if (active) {
    return (
      <p className="flex flex-wrap items-center gap-2 text-sm text-stone-700 dark:text-stone-300">
        Showing your Pro key&apos;s images, from every device. New images use the key.
        <button type="button" onClick={onForget} className={secondaryButton} data-testid="forget-key">
          Forget key
        </button>
      </p>
    );
  }
  if (!open) {
    return (
      <div className="text-sm">
        <button
          type="button"
          onClick={() => setOpen(true)}
          className="rounded font-medium text-stone-600 underline underline-offset-2 hover:text-stone-900 dark:text-stone-400 dark:hover:text-white"
          data-testid="use-pro-key"
        >
          Have a Pro key? See your images from every device
        </button>
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const key = value.trim();
    if (key) onUse(key);
    setValue("");
    setOpen(false);
  };
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label="Use a Pro key">
      <div className="min-w-64 flex-1">
        <label htmlFor="pro-key" className="block text-sm font-semibold">
          Pro key
        </label>
        <input
          id="pro-key"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder="dk_live_…"
          aria-describedby="pro-key-hint"
          className={`${textInput} mt-1 font-mono`}
        />
        <p id="pro-key-hint" className="mt-1 text-xs text-stone-600 dark:text-stone-400">
          Kept only in this tab (sessionStorage) until you close it or press Forget key.
        </p>
      </div>
      <button type="submit" className={`${secondaryButton} mb-5`}>
        Use key
      </button>
    </form>
  );
}
