// Any other /v1 path – a JSON 404 in OpenAI's error shape (chat, audio and the rest are not served here), after the
// same key check and per-minute guard as GET /v1/models, so it carries the x-ratelimit-* headers of every /v1 answer.
import { OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { withApi } from "@/lib/http/with-api";
import { ApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const notFound = withApi(OPENAI_POLICIES.models, async () => {
  throw new ApiError("not_found", "Darkroom serves only the Images and Models endpoints under /v1. See /docs.");
});

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
