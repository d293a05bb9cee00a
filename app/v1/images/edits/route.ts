// POST /v1/images/edits – OpenAI's image edits (multipart: image or image[], mask), as image input to generate.

import { runImages } from "@/lib/features/openai/flow";
import { parseEdits } from "@/lib/features/openai/parse";
import { answerImages } from "@/lib/features/openai/respond";
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  // The shape, then the caller's quota, then the body (within the caller's upload share and deadlines).
  const request = await parseEdits(ctx);
  return answerImages(await runImages(ctx, request), ctx.requestId);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
