// POST /v1/images/variations – OpenAI's image variations (multipart): image-to-image at strength 0.5, fresh seeds.

import { runImages } from "@/lib/features/openai/flow";
import { parseVariations } from "@/lib/features/openai/parse";
import { answerImages } from "@/lib/features/openai/respond";
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  // The shape, then the caller's quota, then the body (within the caller's upload share and deadlines).
  const request = await parseVariations(ctx);
  return answerImages(await runImages(ctx, request), ctx.requestId);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
