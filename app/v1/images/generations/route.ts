// POST /v1/images/generations – OpenAI's image generation (JSON), on the same pipeline as /api/generate.

import { runImages } from "@/lib/features/openai/flow";
import { parseGenerations } from "@/lib/features/openai/parse";
import { answerImages } from "@/lib/features/openai/respond";
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  const request = await parseGenerations(ctx.req);
  return answerImages(await runImages(ctx, request), ctx.requestId);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
