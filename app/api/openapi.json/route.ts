// GET /api/openapi.json – the OpenAPI 3.1 document, generated from the request and response zod schemas.
import { buildOpenApi } from "@/lib/openapi";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export function GET(req: Request): Response {
  const url = new URL(req.url);
  const host = req.headers.get("host");
  const origin = host && HOST.test(host) ? `${url.protocol}//${host}` : url.origin;
  return Response.json(buildOpenApi(origin), {
    headers: { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" },
  });
}
