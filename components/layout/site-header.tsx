// The top bar every page shares: brand and navigation.
import Link from "next/link";
import { LogoMark } from "./logo-mark";
import { SiteNav } from "./site-nav";

export function SiteHeader() {
  return (
    <header className="border-b border-stone-200 bg-white/80 backdrop-blur dark:border-stone-800 dark:bg-stone-900/60">
      <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-2 px-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded-md font-semibold tracking-tight">
          <LogoMark />
          <span className="text-lg max-sm:sr-only">Darkroom</span>
        </Link>
        <SiteNav />
      </div>
    </header>
  );
}
