// The Pro self-view in the reference: GET /api/account and GET /api/usage, how to call them and what they answer.
import { textLink } from "@/components/ui/styles";
import { CodeBlock } from "./code-block";

const ACCOUNT_EXAMPLE = {
  success: true,
  key: {
    id: "key_3f0c9a1b2d4e",
    label: "ada@example.com",
    last4: "x9Qa",
    created_at: "2026-11-20T09:12:44.000Z",
    daily_limit: 1000,
  },
  webhook_secret: "whsec_…",
};

/** One line per day, as a client would log it. */
const USAGE_EXAMPLE = `{
  "success": true,
  "days": [
    { "date": "2026-11-20", "generate": 0, "enhance": 0, "failed": 0, "by_model": {} },
    { "date": "2026-11-21", "generate": 12, "enhance": 3, "failed": 1, "by_model": { "alpha-pro": 9, "beta-3": 3, "fast": 3 } },
    { "date": "2026-11-22", "generate": 4, "enhance": 0, "failed": 0, "by_model": { "alpha-pro": 4 } }
  ],
  "total": 19
}`;

export function AccountSection({ origin }: { origin: string }) {
  return (
    <section aria-labelledby="account-h" id="account" className="scroll-mt-6 space-y-4">
      <h2 id="account-h" className="text-xl font-semibold">
        Your account and usage
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Two reads for Pro keys (401 without one). They use no daily quota and count on the same 60-a-minute guard as{" "}
        <code className="font-mono">/api/status</code>. In the browser, the{" "}
        <a href="/account" className={textLink}>
          Your usage
        </a>{" "}
        page shows the same figures.
      </p>
      <h3 className="font-semibold">
        <code className="font-mono">GET /api/account</code>: the key&apos;s record and its webhook signing secret
      </h3>
      <CodeBlock
        label="curl: GET /api/account"
        code={`curl ${origin}/api/account \\\n  -H "Authorization: Bearer $DARKROOM_API_KEY"`}
      />
      <CodeBlock label="Response 200: GET /api/account" code={JSON.stringify(ACCOUNT_EXAMPLE, null, 2)} />
      <p className="text-sm text-stone-700 dark:text-stone-300">
        <code className="font-mono">webhook_secret</code> (<code className="font-mono">whsec_</code> and base64) is the
        key webhooks are signed with, as Standard Webhooks specifies.
      </p>
      <h3 className="font-semibold">
        <code className="font-mono">GET /api/usage?days=N</code>: daily use, oldest first
      </h3>
      <CodeBlock
        label="curl: GET /api/usage"
        code={`curl "${origin}/api/usage?days=30" \\\n  -H "Authorization: Bearer $DARKROOM_API_KEY"`}
      />
      <CodeBlock label="Response 200: GET /api/usage" code={USAGE_EXAMPLE} />
      <p className="text-sm text-stone-700 dark:text-stone-300">
        <code className="font-mono">days</code> is 1 to 90 (default 30; anything else is 400{" "}
        <code className="font-mono">invalid_request</code>). One entry per UTC day, days without use included:{" "}
        <code className="font-mono">generate</code> and <code className="font-mono">enhance</code> count the requests
        that succeeded (the units your quota used), <code className="font-mono">failed</code> those that failed on our
        side, <code className="font-mono">by_model</code> the successes per model.{" "}
        <code className="font-mono">total</code> is the successes over the period.
      </p>
    </section>
  );
}
