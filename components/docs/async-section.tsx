// The docs page's walk-through of async jobs: accept, follow, cancel, idempotency, and verifying a webhook in Node.
import { CodeBlock } from "./code-block";

const KEY = '-H "Authorization: Bearer $DARKROOM_API_KEY"';

const VERIFY = `// npm install standardwebhooks
import http from "node:http";
import { Webhook } from "standardwebhooks";

// GET /api/account answers your key's secret (whsec_…).
const webhook = new Webhook(process.env.DARKROOM_WEBHOOK_SECRET);

http.createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    try {
      // Checks webhook-id, webhook-timestamp (within 5 minutes) and webhook-signature.
      const event = webhook.verify(body, req.headers);
      console.log(event.type, event.data.id, event.data.result?.url);
      res.writeHead(204).end();
    } catch {
      res.writeHead(400).end(); // not from Darkroom, or tampered with
    }
  });
}).listen(8080);`;

export function AsyncSection({ origin }: { origin: string }) {
  return (
    <section aria-labelledby="async-h" id="async" className="scroll-mt-6 space-y-3">
      <h2 id="async-h" className="text-xl font-semibold">
        Async jobs and webhooks
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Add <code className="font-mono">Prefer: respond-async</code> to a generate or enhance call. Every check runs
        first, as for a synchronous call; once accepted, the answer is <code className="font-mono">202</code> with the
        job&apos;s URLs, and the unit of quota is taken. Follow the job as server-sent events, or read it; cancel it
        while it waits (the unit comes back) or runs (the unit is kept: the work was paid for).
      </p>
      <CodeBlock
        label="Start, follow and cancel a job"
        code={`curl -s -X POST ${origin}/api/generate \\
  ${KEY} \\
  -H "Prefer: respond-async" -H "Idempotency-Key: order-1234" \\
  -H "Content-Type: application/json" \\
  -d '{"prompt":"a lighthouse at dusk"}'
# {"success":true,"id":"job_…","status":"queued","status_url":"…","events_url":"…"}

curl -N ${origin}/api/jobs/job_…/events ${KEY}
# event: progress   data: {"status":"queued","progress":{"queue_position":2,…}}
# event: progress   data: {"status":"running","progress":{"stage":"bfl: pending","fraction":0.4,…}}
# event: succeeded  data: {"success":true,"url":"…",…}

curl -X DELETE ${origin}/api/jobs/job_… ${KEY}`}
      />
      <p className="text-stone-700 dark:text-stone-300">
        With a Pro key, <code className="font-mono">webhook_url</code> (a JSON field for generate, a form field for
        enhance) implies async: when the job ends, Darkroom POSTs{" "}
        <code className="font-mono">{"{ type, timestamp, data }"}</code> signed as Standard Webhooks specifies, and
        retries a failing receiver after about 5 s, 30 s, 2 min, 10 min and 30 min. The URL must be https on a public
        address. Verify each delivery before trusting it:
      </p>
      <CodeBlock label="Verify a webhook in Node" code={VERIFY} />
    </section>
  );
}
