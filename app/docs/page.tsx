// GET /docs – the API reference, rendered from the OpenAPI document that the zod schemas generate.
import type { Metadata } from "next";
import { headers } from "next/headers";
import { AccountSection } from "@/components/docs/account-section";
import { AsyncSection } from "@/components/docs/async-section";
import { EnhanceModesTable, ModelsTable } from "@/components/docs/catalog-tables";
import { CodeBlock } from "@/components/docs/code-block";
import { EndpointSection } from "@/components/docs/endpoint-section";
import { GuidesSection } from "@/components/docs/guides-section";
import { ImageInputSection } from "@/components/docs/image-input-section";
import { OpenAISection } from "@/components/docs/openai-section";
import { ErrorsTable, HeadersTable, LimitsTable } from "@/components/docs/reference-tables";
import { textLink } from "@/components/ui/styles";
import { anchorOf, buildOpenApi, ENDPOINTS } from "@/lib/openapi";
import { getServices } from "@/lib/services";

export const metadata: Metadata = { title: "API reference" };

type Json = Record<string, unknown>;

const TOC = [
  ["auth", "Authentication"],
  ...ENDPOINTS.filter((e) => !e.section).map((e) => [anchorOf(e), `${e.method.toUpperCase()} ${e.path}`]),
  ["image-input", "Image input"],
  ["async", "Async jobs and webhooks"],
  ["openai", "OpenAI-compatible API"],
  ["models", "Models"],
  ["enhance-modes", "Enhance modes"],
  ["account", "Your account and usage"],
  ["limits", "Limits"],
  ["errors", "Errors"],
  ["headers", "Headers"],
  ["guides", "Operator guides"],
];

type OpenApiDoc = {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};

function TableOfContents() {
  return (
    <nav aria-label="On this page" className="mb-6 lg:sticky lg:top-6 lg:mb-0 lg:self-start">
      <p className="text-xs font-semibold tracking-wide text-stone-600 uppercase dark:text-stone-400">On this page</p>
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm lg:flex-col">
        {TOC.map(([id, label]) => (
          <li key={id}>
            <a
              href={`#${id}`}
              className="text-stone-700 hover:text-stone-950 hover:underline dark:text-stone-300 dark:hover:text-white"
            >
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function AuthenticationSection() {
  return (
    <section aria-labelledby="auth-h" id="auth" className="scroll-mt-6 space-y-3">
      <h2 id="auth-h" className="text-xl font-semibold">
        Authentication
      </h2>
      <p className="text-stone-700 dark:text-stone-300">
        Send your Pro key as a bearer token. Keys are not generally available yet:{" "}
        <a href="/waitlist" className={textLink}>
          join the waitlist
        </a>
        . Every error has the same body:
      </p>
      <CodeBlock
        label="Error body"
        code={JSON.stringify(
          {
            success: false,
            error: { code: "invalid_prompt", message: "Prompt must be 1 to 400 characters.", request_id: "req_…" },
          },
          null,
          2,
        )}
      />
    </section>
  );
}

function EndpointsSection({ doc, origin }: { doc: OpenApiDoc; origin: string }) {
  return (
    <section aria-labelledby="endpoints-h" className="space-y-2">
      <h2 id="endpoints-h" className="text-xl font-semibold">
        Endpoints
      </h2>
      {ENDPOINTS.filter((ep) => !ep.section).map((ep) => (
        <EndpointSection
          key={anchorOf(ep)}
          endpoint={ep}
          operation={doc.paths[ep.path][ep.method]}
          schemas={doc.components.schemas}
          origin={origin}
        />
      ))}
    </section>
  );
}

/** The models of /api/generate and the modes of /api/enhance. */
function CatalogSections() {
  return (
    <>
      <section aria-labelledby="models-h" id="models" className="scroll-mt-6 space-y-3">
        <h2 id="models-h" className="text-xl font-semibold">
          Models
        </h2>
        <p className="text-stone-700 dark:text-stone-300">
          The <code className="font-mono">model</code> of <code className="font-mono">/api/generate</code>. Each
          model&apos;s variable takes a route or a comma-separated fallback chain; unset, the first route whose provider
          key is set is used, else the built-in preview renderer (not AI).{" "}
          <code className="font-mono">GET /api/status</code> shows what each model runs on here.
        </p>
        <ModelsTable />
      </section>

      <section aria-labelledby="enhance-modes-h" id="enhance-modes" className="scroll-mt-6 space-y-3">
        <h2 id="enhance-modes-h" className="text-xl font-semibold">
          Enhance modes
        </h2>
        <p className="text-stone-700 dark:text-stone-300">
          The <code className="font-mono">model</code> of <code className="font-mono">/api/enhance</code>. With{" "}
          <code className="font-mono">ENHANCE_MODEL_PATH</code> set, every mode runs the operator&apos;s model.
        </p>
        <EnhanceModesTable />
      </section>
    </>
  );
}

/** This server's limits, the error codes and the headers. */
function ReferenceSections({ limits }: { limits: Parameters<typeof LimitsTable>[0]["limits"] }) {
  return (
    <>
      <section aria-labelledby="limits-h" id="limits" className="scroll-mt-6 space-y-3">
        <h2 id="limits-h" className="text-xl font-semibold">
          Limits
        </h2>
        <p className="text-stone-700 dark:text-stone-300">
          A request uses quota only when it succeeds. These are this server&apos;s current settings.
        </p>
        <LimitsTable limits={limits} />
      </section>

      <section aria-labelledby="errors-h" id="errors" className="scroll-mt-6 space-y-3">
        <h2 id="errors-h" className="text-xl font-semibold">
          Errors
        </h2>
        <p className="text-stone-700 dark:text-stone-300">
          Checked in this order: key (401), input (400/413), content filter (422), quota (429), work (500).
        </p>
        <ErrorsTable />
      </section>

      <section aria-labelledby="headers-h" id="headers" className="scroll-mt-6 space-y-3">
        <h2 id="headers-h" className="text-xl font-semibold">
          Headers
        </h2>
        <HeadersTable />
      </section>
    </>
  );
}

export default async function DocsPage() {
  const h = await headers();
  const proto = h.get("x-forwarded-proto") === "https" ? "https" : "http";
  const origin = `${proto}://${h.get("host") ?? "localhost:3000"}`;
  const doc = buildOpenApi(origin) as OpenApiDoc;
  const { limits, upload } = getServices().config;

  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-10 lg:grid lg:grid-cols-[12rem_1fr] lg:gap-10">
      <TableOfContents />
      <div className="min-w-0 space-y-8">
        <header>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">API reference</h1>
          <p className="mt-2 text-stone-700 dark:text-stone-300">
            Version 1.0 · base URL <code className="font-mono">{origin}</code> · JSON everywhere. The machine-readable{" "}
            <a href="/api/openapi.json" className={textLink}>
              OpenAPI 3.1 document
            </a>{" "}
            is generated from the same schemas that validate requests.
          </p>
        </header>

        <AuthenticationSection />

        <EndpointsSection doc={doc} origin={origin} />

        <ImageInputSection origin={origin} />

        <AsyncSection origin={origin} />

        <OpenAISection origin={origin} />

        <CatalogSections />
        <AccountSection origin={origin} />

        <ReferenceSections limits={{ ...limits, maxUploadBytes: upload.maxBytes }} />

        <GuidesSection />
      </div>
    </div>
  );
}
