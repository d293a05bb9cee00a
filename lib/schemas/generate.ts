// POST /api/generate: request and response schemas (the single source of truth for both).
import { z } from "zod";
import { DEFAULT_MODEL, DEFAULT_RATIO, MODEL_CATALOG, MODEL_NAMES, RATIOS } from "@/lib/catalog/models";
import { DEFAULT_STYLE, STYLE_NAMES } from "@/lib/catalog/styles";
import type { ErrorCode } from "@/lib/schemas/error-codes";
import { countCodePoints, PROMPT_MAX_CODE_POINTS, promptSchema } from "./fields";
import { deleteTokenSchema, expiresAtSchema } from "./image-fields";

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
    webhook_url: z.string().max(2048).optional().meta({
      description: "Pro only: an https URL on a public address to POST the finished job to. Implies async.",
    }),
  })
  .meta({ id: "GenerateRequest" });

export type GenerateRequest = z.infer<typeof generateRequestSchema>;

/** Which error code a failing field maps to, in the order fields are checked. */
export const GENERATE_FIELD_CODES: [keyof GenerateRequest, ErrorCode][] = [
  ["prompt", "invalid_prompt"],
  ["model", "invalid_model"],
  ["style", "invalid_style"],
  ["ratio", "invalid_ratio"],
  ["seed", "invalid_seed"],
  ["negative_prompt", "invalid_negative_prompt"],
  ["webhook_url", "invalid_webhook_url"],
];

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
  })
  .meta({ id: "GenerateResponse" });

export type GenerateResponse = z.infer<typeof generateResponseSchema>;
