// Any other /v1 path – a JSON 404 in OpenAI's error shape (chat, audio and the rest are not served here).
import { openaiErrorBody } from "@/lib/http/openai/dialect";
import { newRequestId, respond } from "@/lib/http/with-api";
import { ApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function notFound(): Response {
  const error = new ApiError("not_found", "Darkroom serves only the Images and Models endpoints under /v1. See /docs.");
  const { status, body } = openaiErrorBody(error);
  return respond(status, body, newRequestId());
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
