// POST /api/generate – generate an image from a prompt.

import { ApiError } from "@/lib/api/errors";
import { parseGenerate } from "@/lib/api/parse-generate";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { generateImage } from "@/lib/engines/generate";
import { checkPrompt } from "@/lib/filter/content-filter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// On Vercel: room for a provider chain (GENERATION_TIMEOUT_MS per route); ignored by the self-hosted server.
export const maxDuration = 300;

export const POST = withApi({
  policy: "generate",
  parse: parseGenerate,
  filter: (input) => {
    if (!checkPrompt(input.prompt).allowed) {
      throw new ApiError(
        "content_filtered",
        "The prompt was rejected by the content safety filter. Please rephrase it.",
      );
    }
  },
  run: generateImage,
});

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
