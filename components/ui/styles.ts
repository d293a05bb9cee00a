// Shared class strings for buttons and panels, so every page's controls look and behave alike.
export const primaryButton =
  "inline-flex items-center justify-center gap-2 rounded-lg bg-stone-900 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-stone-700 disabled:cursor-not-allowed disabled:opacity-60 dark:bg-safelight-400 dark:text-stone-950 dark:hover:bg-safelight-300";

export const secondaryButton =
  "inline-flex items-center justify-center gap-2 rounded-lg border border-stone-300 bg-white px-3 py-2 text-sm font-medium text-stone-800 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-60 dark:border-stone-700 dark:bg-stone-900 dark:text-stone-100 dark:hover:bg-stone-800";

export const panel = "rounded-2xl border border-stone-200 bg-white shadow-sm dark:border-stone-800 dark:bg-stone-900";

export const fieldLabel = "block text-sm font-semibold text-stone-900 dark:text-stone-100";

export const textInput =
  "block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-base text-stone-900 placeholder:text-stone-500 focus-visible:border-safelight-600 aria-invalid:border-red-600 dark:border-stone-700 dark:bg-stone-950 dark:text-stone-100 dark:placeholder:text-stone-400 dark:aria-invalid:border-red-400";

export const textLink =
  "font-medium text-safelight-700 underline underline-offset-2 hover:text-safelight-600 dark:text-safelight-300 dark:hover:text-safelight-100";
