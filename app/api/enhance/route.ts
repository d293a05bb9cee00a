// POST /api/enhance – enhance and upscale an uploaded photo.

import { parseEnhance } from "@/lib/api/parse-enhance";
import { rejectOtherMethods, withApi } from "@/lib/api/with-api";
import { enhanceImage } from "@/lib/enhance/enhance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withApi({ policy: "enhance", parse: parseEnhance, run: enhanceImage });

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
