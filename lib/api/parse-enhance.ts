// Validates an enhance upload: fields first (cheap), then the image header, then a capped decode.

import { decodeImage, probeImage } from "@/lib/enhance/decode";
import type { ModelChoice, RawImage } from "@/lib/enhance/types";
import {
  DEFAULT_ENHANCE_MODEL,
  DEFAULT_STRENGTH,
  modelFieldSchema,
  scaleFieldSchema,
  strengthFieldSchema,
} from "@/lib/schemas/enhance";
import { ApiError } from "./errors";
import { readUpload } from "./read-upload";
import type { Context } from "./with-api";

export type EnhanceInput = { image: RawImage; strength: number; scale: 2 | 4; model: ModelChoice; format: string };

export async function parseEnhance(req: Request, ctx: Omit<Context, "lease">): Promise<EnhanceInput> {
  const { maxBytes, maxPixels } = ctx.svc.config.upload;
  const upload = await readUpload(req, maxBytes);
  if (!upload.image) {
    throw new ApiError(
      "invalid_image",
      upload.imageWasText ? "The image field must be a file upload." : "The image field is missing.",
    );
  }

  let strength = DEFAULT_STRENGTH;
  if ("strength" in upload.fields) {
    const parsed = strengthFieldSchema.safeParse(upload.fields.strength);
    if (!parsed.success) throw new ApiError("invalid_strength");
    strength = parsed.data;
  }
  let scale: 2 | 4 = 2;
  if ("scale" in upload.fields) {
    const parsed = scaleFieldSchema.safeParse(upload.fields.scale.trim());
    if (!parsed.success) throw new ApiError("invalid_scale");
    scale = parsed.data;
  }
  let model: ModelChoice = DEFAULT_ENHANCE_MODEL;
  if ("model" in upload.fields) {
    const parsed = modelFieldSchema.safeParse(upload.fields.model.trim());
    if (!parsed.success) throw new ApiError("invalid_model", "Model must be fast or quality.");
    model = parsed.data;
  }

  const probe = await probeImage(upload.image, maxPixels);
  // Decoding is the expensive part; it runs in the bounded queue so a burst of uploads cannot exhaust memory.
  const bytes = upload.image;
  const image = await ctx.svc.queues.enhance.run(() => decodeImage(bytes, maxPixels), ctx.signal);
  return { image, strength, scale, model, format: probe.format };
}
