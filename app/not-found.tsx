// The 404 page, styled like the rest of the app (Next's default uses inline styles our CSP would strip).
import Link from "next/link";
import { textLink } from "@/components/ui/styles";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-xl px-3 py-16 text-center sm:px-6">
      <h1 className="text-2xl font-bold">Page not found</h1>
      <p className="mt-2 text-stone-600 dark:text-stone-400">There is nothing at this address.</p>
      <p className="mt-6">
        <Link href="/" className={textLink}>
          Back to the studio
        </Link>
      </p>
    </div>
  );
}
