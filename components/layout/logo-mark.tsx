// The Darkroom mark: a safelight-orange lens, drawn inline so it needs no request.
export function LogoMark({ className = "size-7" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" className="fill-stone-900 dark:fill-stone-800" />
      <circle cx="16" cy="16" r="8" fill="none" strokeWidth="3" className="stroke-safelight-400" />
      <circle cx="16" cy="16" r="3" className="fill-safelight-400" />
    </svg>
  );
}
