// Validates a generate request, JSON or multipart, field by field in the contract's order, into one error code.
// Nothing is decoded here: the image and mask bytes are only checked for presence; decoding runs after the quota.

import { type FormType, formToJson } from "@/lib/http/form-text";
import { readJsonObject } from "@/lib/http/read-json";
import type { Upload } from "@/lib/http/read-upload";
import { ApiError } from "@/lib/schemas/api-error";
import { ERROR_CODES } from "@/lib/schemas/error-codes";
import {
  DEFAULT_EDIT_STRENGTH,
  FIELDS_ADDED_IN_1_2,
  GENERATE_FIELD_CODES,
  type GenerateRequest,
  generateRequestSchema,
  INVALID_MODEL_MESSAGE,
} from "@/lib/schemas/generate";

export type GenerateSubmission = {
  request: GenerateRequest;
  /** True when the caller chose the ratio (it then wins over an image's own aspect). */
  ratioGiven: boolean;
  /** The uploaded starting image and mask (multipart), not yet decoded. */
  image?: Buffer;
  mask?: Buffer;
  /** The edit's strength: the caller's, or the default when there is an image. */
  strength: number;
  /** True when the request uses anything added in 1.2 (multipart, n, formats, an image): the answer lists `images`. */
  uses12: boolean;
  /** Gives an upload's bytes back to the in-flight budget. */
  release: () => void;
};

export function validateGenerate(body: Record<string, unknown>): GenerateRequest {
  const parsed = generateRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const failing = new Set(parsed.error.issues.map((i) => i.path[0]));
  for (const [field, code] of GENERATE_FIELD_CODES) {
    if (failing.has(field)) throw new ApiError(code, messageFor(code), { param: field });
  }
  throw new ApiError("invalid_request");
}

function messageFor(code: keyof typeof ERROR_CODES): string {
  if (code === "invalid_model") return INVALID_MODEL_MESSAGE;
  if (code === "invalid_style") return "Unsupported style. GET /api/status lists the style presets.";
  if (code === "not_found") return "No image with this id in your library.";
  return ERROR_CODES[code].message;
}

/** The generate form's fields that are numbers in the JSON form. */
const FORM_TYPES: Record<string, FormType> = {
  seed: "number",
  n: "number",
  output_quality: "number",
  strength: "number",
};

/** Cross-field rules: a mask or a strength needs an image (uploaded or from the library), and only one of those. */
function checkEditFields(request: GenerateRequest, has: { image: boolean; mask: boolean }): void {
  const hasImage = has.image || request.image_id !== undefined;
  if (has.image && request.image_id !== undefined) {
    throw new ApiError("invalid_request", "Send either an image file or image_id, not both.", { param: "image_id" });
  }
  if (has.mask && !hasImage) {
    throw new ApiError("invalid_mask", "A mask needs an image: send image (a file) or image_id with it.", {
      param: "mask",
    });
  }
  if (request.strength !== undefined && !hasImage) {
    throw new ApiError("invalid_strength", "strength applies only with an image: send image or image_id.", {
      param: "strength",
    });
  }
}

export function isMultipart(req: Request): boolean {
  return /^multipart\//i.test(req.headers.get("content-type") ?? "");
}

/** A JSON generate request: text input, or an image from the library by image_id. */
export async function parseGenerateJson(req: Request): Promise<GenerateSubmission> {
  return parseGenerateObject(await readJsonObject(req));
}

/** A generate request's JSON body, already read (from a request, or an MCP tool's arguments). */
export function parseGenerateObject(body: Record<string, unknown>): GenerateSubmission {
  const request = validateGenerate(body);
  // A mask is a file: JSON can name a library image, but cannot carry a mask.
  if (body.mask !== undefined) {
    throw new ApiError("invalid_mask", "Send the mask as a file in multipart/form-data, with image or image_id.", {
      param: "mask",
    });
  }
  checkEditFields(request, { image: false, mask: false });
  return {
    request,
    ratioGiven: body.ratio !== undefined,
    strength: request.strength ?? DEFAULT_EDIT_STRENGTH,
    uses12: FIELDS_ADDED_IN_1_2.some((f) => body[f] !== undefined),
    release: () => undefined,
  };
}

/** A multipart generate request, already read; on a bad field it gives the upload's bytes back and throws. */
export function parseGenerateForm(upload: Upload): GenerateSubmission {
  try {
    if (upload.imageWasText) {
      throw new ApiError("invalid_image", "The image field must be a file upload.", { param: "image" });
    }
    if (upload.maskWasText)
      throw new ApiError("invalid_mask", "The mask field must be a file upload.", { param: "mask" });
    const body = formToJson(upload.fields, FORM_TYPES);
    const request = validateGenerate(body);
    checkEditFields(request, { image: upload.image !== null, mask: upload.mask !== null });
    return {
      request,
      ratioGiven: body.ratio !== undefined,
      image: upload.image ?? undefined,
      mask: upload.mask ?? undefined,
      strength: request.strength ?? DEFAULT_EDIT_STRENGTH,
      uses12: true,
      release: upload.release,
    };
  } catch (err) {
    upload.release();
    throw err;
  }
}
