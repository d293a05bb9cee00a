// The OpenAI-compatible API (/v1): request and answer schemas of the Images and Models endpoints, as the official
// SDKs send and read them (openai-node src/resources/images.ts and models.ts), plus Darkroom's extensions.
import { z } from "zod";
import { DEFAULT_MODEL, MODEL_NAMES } from "@/lib/catalog/models";
import { STYLE_NAMES } from "@/lib/catalog/styles";
import type { ErrorCode } from "@/lib/schemas/error-codes";
import { countCodePoints, PROMPT_MAX_CODE_POINTS } from "./fields";
import { MAX_IMAGES } from "./generate";
import { deleteTokenSchema, expiresAtSchema } from "./image-fields";

/** OpenAI takes prompts of up to 4,000 characters for its image models. */
export const OPENAI_PROMPT_MAX = 4000;
export const MAX_PARTIAL_IMAGES = 3;

export const SIZE_PATTERN = /^([1-9]\d{0,4})x([1-9]\d{0,4})$/;

/** OpenAI's quality names; dall-e-3's `standard` and `hd` are read as medium and high. */
export const OPENAI_QUALITIES = ["auto", "low", "medium", "high", "standard", "hd"] as const;
export const OPENAI_OUTPUT_FORMATS = ["png", "jpeg", "webp"] as const;
/** OpenAI's dall-e-3 styles: accepted and ignored (Darkroom's own presets are the styles). */
export const OPENAI_STYLES = ["vivid", "natural"] as const;

const promptSchema = z
  .string()
  .refine((s) => s.trim() !== "" && countCodePoints(s) <= OPENAI_PROMPT_MAX)
  .meta({ description: `Text description of the image: 1 to ${OPENAI_PROMPT_MAX} characters.` });

const imagesFields = {
  model: z.enum(MODEL_NAMES).default(DEFAULT_MODEL).meta({ description: "A Darkroom model name." }),
  n: z.int().min(1).max(MAX_IMAGES).default(1).meta({ description: "How many images, 1 to 4; one unit each." }),
  size: z
    .union([z.literal("auto"), z.string().regex(SIZE_PATTERN)])
    .optional()
    .meta({ description: "auto, or <W>x<H>: mapped to the published ratio nearest W:H (1:1, 16:9, 9:16)." }),
  response_format: z.enum(["b64_json", "url"]).default("b64_json"),
  user: z.string().max(256).optional().meta({ description: "Accepted and not used." }),
};

const renderFields = {
  quality: z.enum(OPENAI_QUALITIES).default("auto").meta({ description: "Accepted; echoed in the answer." }),
  output_format: z.enum(OPENAI_OUTPUT_FORMATS).default("png"),
  output_compression: z.int().min(0).max(100).optional().meta({
    description: "0 to 100, for jpeg and webp: the encoder's quality (Darkroom's default 90 when absent).",
  }),
  background: z.enum(["auto", "opaque", "transparent"]).default("auto").meta({
    description: "auto or opaque; transparent gives 400, as no engine here makes transparent images.",
  }),
  style: z
    .enum([...STYLE_NAMES, ...OPENAI_STYLES])
    .optional()
    .meta({ description: "A Darkroom style preset; OpenAI's vivid and natural are accepted and ignored." }),
  stream: z.boolean().default(false).meta({ description: "Server-sent events with partial images (n must be 1)." }),
  partial_images: z.int().min(0).max(MAX_PARTIAL_IMAGES).default(0),
  seed: z.int().min(0).max(4294967295).optional().meta({ description: "Darkroom extension: the seed." }),
  negative_prompt: z
    .string()
    .refine((s) => countCodePoints(s) <= PROMPT_MAX_CODE_POINTS)
    .optional()
    .meta({ description: "Darkroom extension: what to avoid, up to 400 characters." }),
};

export const openaiGenerationsSchema = z
  .object({ prompt: promptSchema, ...imagesFields, ...renderFields })
  .meta({ id: "OpenAIImageGenerateRequest" });

export const openaiEditsSchema = z
  .object({
    prompt: promptSchema,
    ...imagesFields,
    ...renderFields,
    strength: z.number().min(0).max(1).optional().meta({
      description: "Darkroom extension: how far the result may move from the image, 0 to 1 (default 0.6).",
    }),
  })
  .meta({ id: "OpenAIImageEditRequest" });

export const openaiVariationsSchema = z.object(imagesFields).meta({ id: "OpenAIImageVariationRequest" });

/** The multipart forms: every field as text, and the files. */
const fileField = (description: string) => z.string().meta({ format: "binary", description });
export const openaiEditsMultipartSchema = openaiEditsSchema
  .extend({
    image: fileField("The image to edit (PNG, JPEG or WebP); up to 4 as image or image[], the first is edited."),
    mask: fileField("Optional: transparent pixels mark what to change (OpenAI's convention).").optional(),
  })
  .meta({ id: "OpenAIImageEditMultipart" });
export const openaiVariationsMultipartSchema = openaiVariationsSchema
  .extend({ image: fileField("The image to vary (PNG, JPEG or WebP).") })
  .meta({ id: "OpenAIImageVariationMultipart" });

export type OpenAIGenerations = z.infer<typeof openaiGenerationsSchema>;
export type OpenAIEdits = z.infer<typeof openaiEditsSchema>;
export type OpenAIVariations = z.infer<typeof openaiVariationsSchema>;

/** Which error code and message a failing field gets, in the order fields are checked; `param` is the field. */
export const OPENAI_FIELD_ERRORS: [string, ErrorCode, string][] = [
  ["prompt", "invalid_prompt", `prompt must be 1 to ${OPENAI_PROMPT_MAX} characters, not only whitespace.`],
  ["model", "invalid_model", `Unsupported model. Use one of: ${MODEL_NAMES.join(", ")}.`],
  ["n", "invalid_n", `n must be an integer from 1 to ${MAX_IMAGES}.`],
  ["size", "invalid_request", "size must be auto or <width>x<height>, for example 1024x1024."],
  ["response_format", "invalid_request", "response_format must be b64_json or url."],
  ["quality", "invalid_request", `quality must be one of ${OPENAI_QUALITIES.join(", ")}.`],
  ["output_format", "invalid_output_format", "output_format must be png, jpeg or webp."],
  ["output_compression", "invalid_output_format", "output_compression must be an integer from 0 to 100."],
  ["background", "invalid_request", "background must be auto, opaque or transparent."],
  [
    "style",
    "invalid_style",
    "Unsupported style. GET /api/status lists the style presets; vivid and natural are accepted.",
  ],
  ["stream", "invalid_request", "stream must be true or false."],
  ["partial_images", "invalid_request", `partial_images must be an integer from 0 to ${MAX_PARTIAL_IMAGES}.`],
  ["seed", "invalid_seed", "seed must be an integer from 0 to 4294967295."],
  ["negative_prompt", "invalid_negative_prompt", "negative_prompt must be a string of at most 400 characters."],
  ["strength", "invalid_strength", "strength must be a number from 0 to 1."],
  ["user", "invalid_request", "user must be a string of at most 256 characters."],
];

const imageItemSchema = z
  .object({
    b64_json: z.string().optional().meta({ description: "The image, base64 (response_format b64_json)." }),
    url: z.url().optional().meta({ description: "The image's URL under the CDN base (response_format url)." }),
    id: z.string(),
    seed: z.int().min(0).optional(),
    expires_at: expiresAtSchema,
    delete_token: deleteTokenSchema,
    engine: z.string().meta({ description: '"preview" is the built-in renderer, not an AI model.' }),
    ai: z.boolean().meta({ description: "False when the image came from the built-in preview renderer." }),
  })
  .meta({ id: "OpenAIImage" });

export const openaiImagesResponseSchema = z
  .object({
    created: z.int().meta({ description: "Unix seconds." }),
    data: z.array(imageItemSchema),
    output_format: z.enum(OPENAI_OUTPUT_FORMATS),
    size: z.string().meta({ description: "<W>x<H> of the images made." }),
    quality: z.string(),
    background: z.enum(["opaque"]),
  })
  .meta({ id: "OpenAIImagesResponse" });

export const openaiModelSchema = z
  .object({
    id: z.enum(MODEL_NAMES),
    object: z.literal("model"),
    created: z.int(),
    owned_by: z.literal("darkroom"),
  })
  .meta({ id: "OpenAIModel" });

export const openaiModelListSchema = z
  .object({ object: z.literal("list"), data: z.array(openaiModelSchema) })
  .meta({ id: "OpenAIModelList" });

export const openaiErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum(["invalid_request_error", "authentication_error", "rate_limit_error", "server_error"]),
      param: z.string().nullable(),
      code: z.string().meta({ description: "Darkroom's code; moderation_blocked for a filtered prompt." }),
    }),
  })
  .meta({ id: "OpenAIError" });
