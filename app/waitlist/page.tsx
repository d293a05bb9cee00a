// GET /waitlist – join the Pro waitlist.
import type { Metadata } from "next";
import { panel } from "@/components/ui/styles";
import { WaitlistForm } from "@/components/waitlist/waitlist-form";
import { getServices } from "@/lib/services";

export const metadata: Metadata = { title: "Pro waitlist" };

const perks = (proPerDay: number) => [
  [
    `${proPerDay.toLocaleString("en-US")} requests a day`,
    "Generations and enhancements share one daily counter per key.",
  ],
  ["Your own API key", "Call /api/generate and /api/enhance from any server or script."],
  ["Same models, same styles", "Everything in the studio, over a documented REST API."],
];

export default function WaitlistPage() {
  const { limits } = getServices().config;
  return (
    <div className="mx-auto grid max-w-5xl gap-8 px-3 py-8 sm:px-6 sm:py-12 md:grid-cols-2">
      <div>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Join the Pro waitlist</h1>
        <p className="mt-2 text-stone-700 dark:text-stone-300">
          Free use in the studio is {limits.freeGenerationsPerDay} generations and {limits.freeEnhancementsPerDay}{" "}
          enhancements a day. Pro API keys are coming soon; leave your email and we&apos;ll write when they open up.
        </p>
        <ul className="mt-6 space-y-4">
          {perks(limits.proRequestsPerDay).map(([title, text]) => (
            <li key={title} className="flex gap-3">
              <span className="mt-1 size-2.5 shrink-0 rounded-full bg-safelight-500" aria-hidden="true" />
              <span>
                <span className="block font-semibold">{title}</span>
                <span className="text-sm text-stone-600 dark:text-stone-400">{text}</span>
              </span>
            </li>
          ))}
        </ul>
      </div>
      <div className={`${panel} p-5 sm:p-6`}>
        <WaitlistForm />
        <p className="mt-5 text-xs text-stone-600 dark:text-stone-400">
          We only use your email to tell you about Pro access. No newsletter.
        </p>
      </div>
    </div>
  );
}
