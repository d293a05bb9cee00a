// A key just issued: shown this once with a copy button, with its webhook signing secret, and either "emailed" or
// the invitation ready to send by hand.
"use client";
import { useEffect, useRef } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { secondaryButton } from "@/components/ui/styles";
import type { IssuedKey } from "@/lib/client/admin-api";

type Props = { issued: IssuedKey; onDone: () => void };

const codeBox =
  "block min-w-0 flex-1 overflow-x-auto rounded-lg bg-white px-3 py-2 font-mono text-sm whitespace-nowrap text-stone-900 ring-1 ring-emerald-300 dark:bg-stone-950 dark:text-stone-100 dark:ring-emerald-800";

export function IssuedKeyPanel({ issued, onDone }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section
      aria-labelledby="issued-key-title"
      data-testid="issued-key"
      className="space-y-4 rounded-2xl border border-emerald-300 bg-emerald-50 p-4 text-emerald-950 sm:p-5 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-50"
    >
      <div>
        <h2 id="issued-key-title" ref={heading} tabIndex={-1} className="text-lg font-semibold outline-none">
          New key for {issued.email ?? issued.label}
        </h2>
        <p className="mt-1 text-sm">
          Copy it now: it is shown only this once and stored only as a hash.{" "}
          {issued.daily_limit.toLocaleString("en-US")} requests a day.
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <code className={codeBox} data-testid="issued-key-value">
          {issued.key}
        </code>
        <CopyButton text={issued.key} label="Copy key" copiedLabel="Key copied" />
      </div>
      {issued.webhook_secret && (
        <div>
          <p className="text-sm font-medium">Webhook signing secret</p>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            <code className={codeBox}>{issued.webhook_secret}</code>
            <CopyButton text={issued.webhook_secret} label="Copy secret" copiedLabel="Secret copied" />
          </div>
        </div>
      )}
      {issued.emailed ? (
        <p className="text-sm font-medium" data-testid="issued-key-emailed">
          The invitation with the key, the docs link and the quota was emailed to {issued.email}.
        </p>
      ) : (
        issued.invitation && (
          <div data-testid="issued-key-invitation">
            <p className="text-sm font-medium">
              {issued.email_error ?? "Email is not set up on this server (SMTP_URL, MAIL_FROM)."} Send this to{" "}
              {issued.invitation.to}:
            </p>
            <pre
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus so keyboards can scroll it (axe scrollable-region-focusable).
              tabIndex={0}
              className="mt-2 max-h-64 overflow-auto rounded-lg bg-white p-3 font-mono text-xs whitespace-pre-wrap text-stone-900 ring-1 ring-emerald-300 dark:bg-stone-950 dark:text-stone-100 dark:ring-emerald-800"
            >
              {`Subject: ${issued.invitation.subject}\n\n${issued.invitation.text}`}
            </pre>
            <div className="mt-2">
              <CopyButton
                text={`Subject: ${issued.invitation.subject}\n\n${issued.invitation.text}`}
                label="Copy message"
                copiedLabel="Message copied"
              />
            </div>
          </div>
        )
      )}
      <button type="button" className={secondaryButton} onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
}
