// GET /account – "Your usage": a Pro caller's own daily use, with the key pasted in (kept in memory only).
import type { Metadata } from "next";
import { UsageViewer } from "@/components/account/usage-viewer";
import { textLink } from "@/components/ui/styles";

export const metadata: Metadata = { title: "Your usage" };

export default function AccountPage() {
  return (
    <div className="mx-auto max-w-4xl px-3 py-8 sm:px-6 sm:py-12">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Your usage</h1>
      <p className="mt-2 mb-6 text-stone-700 dark:text-stone-300">
        Paste your Pro key to see your requests per day, your limit and your webhook signing secret. The same figures
        come from{" "}
        <a href="/docs#account" className={textLink}>
          GET /api/account and GET /api/usage
        </a>
        .
      </p>
      <UsageViewer />
    </div>
  );
}
