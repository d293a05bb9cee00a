// Validates an enhance upload's shape: the fields and that an image file was sent. Nothing is decoded here: that
// costs CPU and memory, so it runs only after the quota is taken.
import { ALL_ENHANCE_MODE_NAMES, type EnhanceModeName, unconfiguredModeMessage } from "@/lib/catalog/enhance-modes";
import { DEFAULT_OUTPUT_FORMAT, DEFAULT_OUTPUT_QUALITY, type OutputEncoding } from "@/lib/catalog/output-formats";
import type { Config } from "@/lib/config";
import { assertPromptAllowed } from "@/lib/features/generate/filter-prompt";
import { formValue } from "@/lib/http/form-text";
import type { Upload } from "@/lib/http/read-upload";
import { ApiError } from "@/lib/schemas/api-error";
import {
  DEFAULT_ENHANCE_MODE,
  DEFAULT_STRENGTH,
  INVALID_ENHANCE_MODE_MESSAGE,
  modelFieldSchema,
  scaleFieldSchema,
  strengthFieldSchema,
} from "@/lib/schemas/enhance";
import { outputFormatSchema, outputQualitySchema } from "@/lib/schemas/image-fields";

export type EnhanceUpload = {
  bytes: Buffer;
  strength: number;
  scale: 2 | 4;
  model: EnhanceModeName;
  /** For creative and Stability's conservative route; filtered. */
  prompt?: string;
  webhookUrl?: string;
  output: OutputEncoding;
  /** Gives the upload's bytes back to the in-flight budget. */
  release: () => void;
};

/** output_format and output_quality, as form text; shared with generate's rules. */
export function outputOf(fields: Record<string, string>): OutputEncoding {
  const format = outputFormatSchema.safeParse(fields.output_format?.trim());
  if (!format.success) throw new ApiError("invalid_output_format", undefined, { param: "output_format" });
  const qualityText = fields.output_quality?.trim();
  const quality = outputQualitySchema.safeParse(
    qualityText === undefined ? undefined : formValue(qualityText, "integer"),
  );
  if (!quality.success) throw new ApiError("invalid_output_format", undefined, { param: "output_quality" });
  return { format: format.data ?? DEFAULT_OUTPUT_FORMAT, quality: quality.data ?? DEFAULT_OUTPUT_QUALITY };
}

/** The longest prompt, in code points, as generation's. */
const MAX_PROMPT_CODE_POINTS = 400;

/**
 * Validates a read upload's fields; on a bad one it gives the upload's bytes back and throws the field's code.
 * `served` are the modes with a route here: another is 400 invalid_model naming them.
 */
export function parseEnhance(upload: Upload, served: readonly EnhanceModeName[]): EnhanceUpload {
  try {
    if (!upload.image) {
      throw new ApiError(
        "invalid_image",
        upload.imageWasText ? "The image field must be a file upload." : "The image field is missing.",
      );
    }
    let strength = DEFAULT_STRENGTH;
    if ("strength" in upload.fields) {
      const parsed = strengthFieldSchema.safeParse(upload.fields.strength);
      if (!parsed.success) throw new ApiError("invalid_strength", undefined, { param: "strength" });
      strength = parsed.data;
    }
    let scale: 2 | 4 = 2;
    if ("scale" in upload.fields) {
      const parsed = scaleFieldSchema.safeParse(upload.fields.scale.trim());
      if (!parsed.success) throw new ApiError("invalid_scale", undefined, { param: "scale" });
      scale = parsed.data;
    }
    let model: EnhanceModeName = DEFAULT_ENHANCE_MODE;
    if ("model" in upload.fields) {
      const name = upload.fields.model.trim();
      const parsed = modelFieldSchema.safeParse(name);
      if (!parsed.success || !served.includes(parsed.data)) {
        const message = unconfiguredModeMessage(name, served) ?? INVALID_ENHANCE_MODE_MESSAGE;
        throw new ApiError("invalid_model", message, { param: "model" });
      }
      model = parsed.data;
    }
    const prompt = upload.fields.prompt?.trim() || undefined;
    if (prompt !== undefined) {
      if ([...prompt].length > MAX_PROMPT_CODE_POINTS)
        throw new ApiError("invalid_prompt", undefined, { param: "prompt" });
      assertPromptAllowed({ prompt });
    }
    const webhookUrl = upload.fields.webhook_url?.trim() || undefined;
    return {
      bytes: upload.image,
      strength,
      scale,
      model,
      prompt,
      webhookUrl,
      output: outputOf(upload.fields),
      release: upload.release,
    };
  } catch (err) {
    upload.release();
    throw err;
  }
}

/** The modes with at least one route on this server (ENHANCE_<MODE>, or the in-process defaults). */
export function servedEnhanceModes(config: Pick<Config, "enhance">): EnhanceModeName[] {
  return ALL_ENHANCE_MODE_NAMES.filter((mode) => config.enhance.chains[mode].length > 0);
}
