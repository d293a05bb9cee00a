// The docs page's short guide to the OpenAI-compatible API (/v1): which tools, what base URL, and the guide for more.
import { textLink } from "@/components/ui/styles";
import { ENDPOINTS } from "@/lib/openapi";
import { CodeBlock } from "./code-block";
import { mono, SimpleTable } from "./simple-table";

const ROUTES = ENDPOINTS.filter((ep) => ep.section === "openai").map((ep) => {
  const what = ep.summary.replace("OpenAI-compatible: ", "");
  return {
    key: `${ep.method} ${ep.path}`,
    cells: [mono(`${ep.method.toUpperCase()} ${ep.path}`), what[0].toUpperCase() + what.slice(1)],
  };
});

export function OpenAISection({ origin }: { origin: string }) {
  return (
    <section aria-labelledby="openai-h" id="openai" className="scroll-mt-6 space-y-3">
      <h2 id="openai-h" className="text-xl font-semibold">
        OpenAI-compatible API
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Tools that speak the OpenAI Images API (the <code className="font-mono">openai</code> SDKs, the AI SDK&apos;s
        OpenAI-compatible provider, Open WebUI, LibreChat) work with Darkroom once their base URL is{" "}
        <code className="font-mono">{origin}/v1</code> and their key a Pro key. The quota, filter, engines, library and{" "}
        <code className="font-mono">Idempotency-Key</code> are those of <code className="font-mono">/api</code>; errors
        come in OpenAI&apos;s body so the SDKs raise their own error classes. Field by field, streaming and each
        client&apos;s settings:{" "}
        <a href="/docs/guides/openai-compatible" className={textLink}>
          the OpenAI-compatible API guide
        </a>
        .
      </p>
      <SimpleTable
        caption="OpenAI-compatible routes"
        head={["Route", "What it does"]}
        rows={ROUTES}
        testId="openai-routes"
      />
      <CodeBlock
        label="The openai SDK (Node)"
        code={`import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${origin}/v1", apiKey: process.env.DARKROOM_API_KEY });
const { data } = await client.images.generate({ model: "alpha-schnell", prompt: "a lighthouse at dusk" });`}
      />
      <CodeBlock
        label="The openai SDK (Python)"
        code={`import os
from openai import OpenAI

client = OpenAI(base_url="${origin}/v1", api_key=os.environ["DARKROOM_API_KEY"])
image = client.images.generate(model="alpha-schnell", prompt="a lighthouse at dusk")`}
      />
    </section>
  );
}
