// GET /api/status – service health and the caller's daily usage.
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { buildStatus, serializeStatus } from "@/lib/status";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withApi({
  policy: "status",
  parse: async () => null,
  run: (_input, ctx) => buildStatus(ctx),
  serialize: serializeStatus,
});

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
