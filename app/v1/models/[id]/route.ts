// GET /v1/models/{id} – one Darkroom model in OpenAI's shape; 404 for any other id.

import { MODEL_NAMES } from "@/lib/catalog/models";
import { modelEntry } from "@/lib/features/openai/answer";
import { OPENAI_DIALECT, OPENAI_POLICIES } from "@/lib/http/openai/dialect";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { ApiError } from "@/lib/schemas/api-error";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return withApi(OPENAI_POLICIES.models, async () => {
    if (!(MODEL_NAMES as string[]).includes(id)) {
      throw new ApiError("not_found", `No model "${id}". GET /v1/models lists them.`, { param: "model" });
    }
    return modelEntry(id);
  })(req);
}

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"], OPENAI_DIALECT);
