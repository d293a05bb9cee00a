// Any other /api path – a JSON 404 in the contract's error shape rather than the HTML not-found page.

import { errorResponse, newRequestId } from "@/lib/http/with-api";
import { ApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function notFound(): Response {
  return errorResponse(new ApiError("not_found", "No such API endpoint. See /docs."), newRequestId());
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
