// POST /v1/images/generations – OpenAI's image generation (JSON), on the same pipeline as /api/generate.
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/api/openai/dialect";
import { parseGenerations } from "@/lib/api/openai/requests";
import { runImages } from "@/lib/api/openai/run-images";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export const POST = withApi(OPENAI_POLICIES.images, async (ctx) => {
  const request = await parseGenerations(ctx.req);
  return runImages(ctx, request);
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"], OPENAI_DIALECT);
