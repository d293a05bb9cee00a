// GET /v1/models – the four Darkroom models in OpenAI's list shape.
import { modelList } from "@/lib/features/openai/answer";
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withApi(OPENAI_POLICIES.models, async () => modelList());

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"], OPENAI_DIALECT);
