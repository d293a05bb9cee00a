// GET /api/openapi.json – the OpenAPI 3.1 document, generated from the request and response zod schemas.
import { buildOpenApi } from "@/lib/openapi";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

let rendered: string | undefined;

/**
 * The document is cached publicly, so nothing in it may come from the request: a server URL built from the Host
 * header would let one request poison what shared caches hand to everyone. The server is relative (OpenAPI resolves
 * it against where the document was fetched) and the curl samples name the base URL as a shell variable.
 */
function renderDocument(): string {
  rendered ??= JSON.stringify({ ...buildOpenApi("$DARKROOM_URL"), servers: [{ url: "/" }] });
  return rendered;
}

export function GET(): Response {
  return new Response(renderDocument(), {
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "public, max-age=300",
      "Access-Control-Allow-Origin": "*",
    },
  });
}
