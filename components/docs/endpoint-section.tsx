// One endpoint in the reference: what it does, a curl example, and its request and response fields from the schemas.
import { anchorOf, type Endpoint } from "@/lib/openapi";
import { CodeBlock } from "./code-block";
import { SchemaTable } from "./schema-table";

type Json = Record<string, unknown>;
type Props = { endpoint: Endpoint; operation: Json; schemas: Record<string, Json>; origin: string };

function resolve(schema: Json | undefined, schemas: Record<string, Json>): Json {
  const ref = schema?.$ref;
  return typeof ref === "string" ? (schemas[ref.split("/").pop() ?? ""] ?? {}) : (schema ?? {});
}

function contentSchema(content: unknown, schemas: Record<string, Json>): Json {
  const media = Object.values((content ?? {}) as Record<string, { schema?: Json }>)[0];
  return resolve(media?.schema, schemas);
}

const METHOD_COLOURS: Record<Endpoint["method"], string> = {
  get: "bg-sky-100 text-sky-900 dark:bg-sky-900/50 dark:text-sky-100",
  post: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-100",
  delete: "bg-red-100 text-red-900 dark:bg-red-900/50 dark:text-red-100",
};

const AUTH_NOTES: Record<Endpoint["auth"], string> = {
  open: "No key needed.",
  "key-or-browser":
    "Needs Authorization: Bearer <key> (Pro), or X-Requested-With: XMLHttpRequest from the app's own pages (Free, per IP).",
  key: "Needs Authorization: Bearer <key> (Pro).",
  "key-or-delete-token":
    "Needs Authorization: Bearer <key> of the key that made the image, or the image's X-Delete-Token (no key needed).",
};

export function EndpointSection({ endpoint, operation, schemas, origin }: Props) {
  const id = anchorOf(endpoint);
  const request = operation.requestBody as { content?: unknown } | undefined;
  const responses = operation.responses as Record<string, { content?: unknown }>;
  return (
    <section
      aria-labelledby={`ep-${id}`}
      className="scroll-mt-6 space-y-4 border-t border-stone-200 pt-8 dark:border-stone-800"
      id={id}
    >
      <h3 id={`ep-${id}`} className="flex flex-wrap items-center gap-2 text-lg font-semibold">
        <span
          className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_COLOURS[endpoint.method]}`}
        >
          {endpoint.method}
        </span>
        <code className="font-mono">{endpoint.path}</code>
        <span className="text-base font-normal text-stone-600 max-sm:basis-full dark:text-stone-400">
          <span className="max-sm:hidden">· </span>
          {endpoint.summary}
        </span>
      </h3>
      <p className="text-stone-700 dark:text-stone-300">{endpoint.description}</p>
      <p className="text-sm text-stone-600 dark:text-stone-400">{AUTH_NOTES[endpoint.auth]}</p>
      <CodeBlock code={endpoint.curl(origin)} label={`curl: ${endpoint.method.toUpperCase()} ${endpoint.path}`} />
      {request && (
        <>
          <h4 className="font-semibold">
            Request body{" "}
            <span className="font-mono text-sm font-normal text-stone-600 dark:text-stone-400">
              {endpoint.request?.contentType}
            </span>
          </h4>
          <SchemaTable schema={contentSchema(request.content, schemas)} caption={`${endpoint.path} request fields`} />
        </>
      )}
      <h4 className="font-semibold">Response 200</h4>
      <SchemaTable
        schema={contentSchema(responses["200"]?.content, schemas)}
        caption={`${endpoint.path} response fields`}
      />
      <p className="text-sm text-stone-700 dark:text-stone-300">
        <span className="font-semibold">Errors: </span>
        {endpoint.errors.map((code, i) => (
          <span key={code}>
            {i > 0 && ", "}
            <a
              href={`#error-${code}`}
              className="font-mono text-safelight-700 underline underline-offset-2 dark:text-safelight-300"
            >
              {code}
            </a>
          </span>
        ))}
      </p>
    </section>
  );
}
