// Any other /api path – a JSON 404 in the contract's error shape rather than the HTML not-found page.
import { errorResponse, newRequestId } from "@/lib/api/with-api";
import { ApiError } from "@/lib/api/errors";
import { nextUtcMidnightMs } from "@/lib/api/headers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function notFound(): Response {
  const usage = { limit: 0, used: 0, remaining: 0, resetMs: nextUtcMidnightMs() };
  const res = errorResponse(new ApiError("not_found", "No such API endpoint. See /docs."), newRequestId(), usage);
  for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) res.headers.delete(h);
  return res;
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
