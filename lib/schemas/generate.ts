// POST /api/generate: request and response schemas (the single source of truth for both).
import { z } from "zod";
import { DEFAULT_MODEL, DEFAULT_RATIO, MODEL_CATALOG, MODEL_NAMES, RATIOS } from "@/lib/catalog/models";
import { DEFAULT_STYLE, STYLE_NAMES } from "@/lib/catalog/styles";
import type { ErrorCode } from "@/lib/schemas/error-codes";
import { MAX_WEBHOOK_URL_LENGTH } from "@/lib/webhooks/url";
import { countCodePoints, PROMPT_MAX_CODE_POINTS, promptSchema } from "./fields";
import { deleteTokenSchema, expiresAtSchema, outputFormatSchema, outputQualitySchema } from "./image-fields";

export const MAX_IMAGES = 4;
/** How far an edit may move from its image when the caller does not say. */
export const DEFAULT_EDIT_STRENGTH = 0.6;

const generatedImageSchema = z
  .object({
    url: z.url(),
    id: z.string(),
    seed: z.int().min(0).optional(),
    width: z.int().positive(),
    height: z.int().positive(),
    expires_at: expiresAtSchema,
    delete_token: deleteTokenSchema,
  })
  .meta({ id: "GeneratedImage" });

export const INVALID_MODEL_MESSAGE = `Unsupported model. Use one of: ${MODEL_NAMES.join(", ")}.`;

const MODEL_DESCRIPTION = `Model to generate with: ${MODEL_CATALOG.map((m) => `${m.name} (${m.family})`).join(", ")}.`;

export const generateRequestSchema = z
  .object({
    prompt: promptSchema,
    model: z.enum(MODEL_NAMES).default(DEFAULT_MODEL).meta({ description: MODEL_DESCRIPTION }),
    style: z.enum(STYLE_NAMES).default(DEFAULT_STYLE).meta({ description: "Style preset (exact name)." }),
    ratio: z.enum(RATIOS).default(DEFAULT_RATIO).meta({ description: "Aspect ratio." }),
    seed: z.int().min(0).max(4294967295).optional().meta({ description: "Seed, passed to engines that support it." }),
    negative_prompt: z
      .string()
      .refine((s) => countCodePoints(s) <= PROMPT_MAX_CODE_POINTS, "Negative prompt must be at most 400 characters.")
      .optional()
      .meta({ description: "What to avoid, up to 400 characters; passed to engines that support it." }),
    n: z.int().min(1).max(MAX_IMAGES).optional().meta({
      description: "How many images, 1 to 4 (default 1); each is one unit of quota and gets its own seed.",
    }),
    output_format: outputFormatSchema,
    output_quality: outputQualitySchema,
    strength: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({
        description: `Only with an image: how far the result may move from it, 0 (keep) to 1 (ignore). Default ${DEFAULT_EDIT_STRENGTH}.`,
      }),
    image_id: z.string().min(1).max(200).optional().meta({
      description: "Instead of uploading: an image in your own library (its id) to start from.",
    }),
    webhook_url: z.string().max(MAX_WEBHOOK_URL_LENGTH).optional().meta({
      description: "Pro only: an https URL on a public address to POST the finished job to. Implies async.",
    }),
  })
  .meta({ id: "GenerateRequest" });

/** The multipart form of the request: every JSON field as text, plus the image and the mask as files. */
export const generateMultipartSchema = generateRequestSchema
  .extend({
    image: z.string().optional().meta({
      format: "binary",
      description: "The starting image: PNG, JPEG or WebP; at most 10 MB and 25 megapixels.",
    }),
    mask: z.string().optional().meta({
      format: "binary",
      description:
        "Only with an image: the area to change. White changes, black keeps, grey is partial; a mask with transparency is read as OpenAI's (transparent changes). Scaled to the image.",
    }),
  })
  .meta({ id: "GenerateMultipartRequest" });

export type GenerateRequest = z.infer<typeof generateRequestSchema>;

/** Which error code a failing field maps to, in the order fields are checked. */
export const GENERATE_FIELD_CODES: [keyof GenerateRequest, ErrorCode][] = [
  ["prompt", "invalid_prompt"],
  ["model", "invalid_model"],
  ["style", "invalid_style"],
  ["ratio", "invalid_ratio"],
  ["seed", "invalid_seed"],
  ["negative_prompt", "invalid_negative_prompt"],
  ["n", "invalid_n"],
  ["output_format", "invalid_output_format"],
  ["output_quality", "invalid_output_format"],
  ["strength", "invalid_strength"],
  ["image_id", "not_found"],
  ["webhook_url", "invalid_webhook_url"],
];

/**
 * The most UTF-8 bytes a valid text field of the form can take: the schema's limits count code points (the prompts)
 * or UTF-16 units (the webhook URL), and a code point takes up to 4 bytes, a UTF-16 unit up to 3.
 */
export const GENERATE_FIELD_MAX_BYTES = Math.max(PROMPT_MAX_CODE_POINTS * 4, MAX_WEBHOOK_URL_LENGTH * 3);

/** The 1.2 fields: a request that uses none of them gets exactly the 1.1 answer. */
export const FIELDS_ADDED_IN_1_2 = ["n", "output_format", "output_quality", "strength", "image_id"] as const;

export const generateResponseSchema = z
  .object({
    success: z.literal(true),
    url: z.url().meta({ description: "Absolute URL of the PNG under the CDN base; immutable." }),
    model: z.enum(MODEL_NAMES),
    ratio: z.enum(RATIOS),
    usage: z.int().min(0).meta({ description: "Units used in the current daily window, counting this one." }),
    remaining: z.int().min(0).meta({ description: "Units left in the current daily window." }),
    id: z.string(),
    style: z.enum(STYLE_NAMES),
    width: z.int().positive(),
    height: z.int().positive(),
    seed: z.int().min(0).optional(),
    engine: z
      .string()
      .meta({ description: 'The route that produced the image; "preview" is the built-in renderer, not an AI model.' }),
    ai: z.boolean().meta({ description: "False when the image came from the built-in preview renderer." }),
    expires_at: expiresAtSchema,
    delete_token: deleteTokenSchema,
    images: z.array(generatedImageSchema).optional().meta({
      description:
        "1.2: one entry per image made (requests that use a 1.2 field). The fields above describe the first image.",
    }),
    source_image_id: z.string().optional().meta({ description: "The library image the edit started from." }),
  })
  .meta({ id: "GenerateResponse" });

export type GenerateResponse = z.infer<typeof generateResponseSchema>;
