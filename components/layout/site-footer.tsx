// The footer: what the service is, where the API lives, and that it is self-hostable.
import Link from "next/link";

export function SiteFooter() {
  return (
    <footer className="border-t border-stone-200 py-6 text-sm text-stone-600 dark:border-stone-800 dark:text-stone-400">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 px-3 sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <p>Darkroom · open-source, self-hostable image generation and enhancement.</p>
        <p className="flex flex-wrap gap-x-4 gap-y-1">
          <Link className="underline underline-offset-2 hover:text-stone-900 dark:hover:text-white" href="/docs">
            API reference
          </Link>
          <a
            className="underline underline-offset-2 hover:text-stone-900 dark:hover:text-white"
            href="/api/openapi.json"
          >
            OpenAPI
          </a>
          <Link className="underline underline-offset-2 hover:text-stone-900 dark:hover:text-white" href="/waitlist">
            Pro waitlist
          </Link>
          <Link className="underline underline-offset-2 hover:text-stone-900 dark:hover:text-white" href="/account">
            Your usage
          </Link>
        </p>
      </div>
    </footer>
  );
}
