// POST /v1/images/edits – OpenAI's image edits (multipart: image or image[], mask), as image input to generate.
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/api/openai/dialect";
import { parseEdits } from "@/lib/api/openai/requests";
import { runImages } from "@/lib/api/openai/run-images";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  // The shape, then the caller's quota, then the body (within the caller's upload share and deadlines).
  const request = await parseEdits(ctx);
  return runImages(ctx, request);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
