// POST /v1/images/variations – OpenAI's image variations (multipart): image-to-image at strength 0.5, fresh seeds.
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/api/openai/dialect";
import { parseVariations } from "@/lib/api/openai/requests";
import { runImages } from "@/lib/api/openai/run-images";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  // The shape, then the caller's quota, then the body (within the caller's upload share and deadlines).
  const request = await parseVariations(ctx);
  return runImages(ctx, request);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
