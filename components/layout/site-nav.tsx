// Primary navigation; a client component only to mark the current page for assistive tech.
"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS: { href: string; label: string; short?: string }[] = [
  { href: "/", label: "Studio" },
  { href: "/enhance", label: "Enhance" },
  { href: "/docs", label: "API docs", short: "Docs" },
];

export function SiteNav() {
  const path = usePathname();
  const isCurrent = (href: string) => (href === "/" ? path === "/" : path.startsWith(href));
  return (
    <nav aria-label="Main" className="flex items-center gap-1 text-sm sm:gap-2">
      {LINKS.map((l) => (
        <Link
          key={l.href}
          href={l.href}
          aria-current={isCurrent(l.href) ? "page" : undefined}
          className="rounded-md px-2 py-1.5 font-medium text-stone-600 hover:bg-stone-200/70 hover:text-stone-900 aria-[current=page]:bg-stone-200 aria-[current=page]:text-stone-900 sm:px-3 dark:text-stone-300 dark:hover:bg-stone-800 dark:hover:text-white dark:aria-[current=page]:bg-stone-800 dark:aria-[current=page]:text-white"
        >
          {l.short ? (
            <>
              <span className="sm:hidden">{l.short}</span>
              <span className="max-sm:hidden">{l.label}</span>
            </>
          ) : (
            l.label
          )}
        </Link>
      ))}
      <Link
        href="/waitlist"
        aria-current={isCurrent("/waitlist") ? "page" : undefined}
        className="ml-1 rounded-md bg-stone-900 px-2.5 py-1.5 font-semibold whitespace-nowrap text-white hover:bg-stone-700 sm:ml-2 sm:px-3 dark:bg-safelight-400 dark:text-stone-950 dark:hover:bg-safelight-300"
      >
        Get Pro
      </Link>
    </nav>
  );
}
