// POST /api/enhance: multipart fields and the response schema.
import { z } from "zod";
import {
  ALL_ENHANCE_MODE_NAMES,
  DEFAULT_ENHANCE_MODE,
  describeEnhanceModes,
  ENHANCE_MODE_NAMES,
  findEnhanceMode,
  joinWithOr,
} from "@/lib/catalog/enhance-modes";
import { DEFAULT_STRENGTH } from "./enhance-rules";
import { deleteTokenSchema, expiresAtSchema, outputFormatSchema, outputQualitySchema } from "./image-fields";

// Server code imports these from here; client code imports enhance-rules.ts directly to stay zod-free.
export {
  ACCEPTED_IMAGE_FORMATS,
  ACCEPTED_IMAGE_TYPES,
  DEFAULT_STRENGTH,
  ENHANCE_SCALES,
  MAX_OUTPUT_SIDE,
} from "./enhance-rules";
export { DEFAULT_ENHANCE_MODE };

export const INVALID_ENHANCE_MODE_MESSAGE = `Model must be ${joinWithOr(ENHANCE_MODE_NAMES)}.`;
const MODE_DESCRIPTION = `The enhance mode: ${describeEnhanceModes()}; faces (face restoration, then the upscale) and creative (generative upscaling) where the server has a route for them (ENHANCE_FACES, ENHANCE_CREATIVE; GET /api/status lists enhance_modes).`;
const ENGINE_EXAMPLE = `onnx:${findEnhanceMode(DEFAULT_ENHANCE_MODE).package}-x2`;

/** Form fields arrive as strings; an empty value counts as present. */
export const strengthFieldSchema = z
  .string()
  .trim()
  .regex(/^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/)
  .transform(Number)
  .pipe(z.number().min(0).max(1))
  .meta({ description: "Enhancement strength from 0 (faithful resize) to 1 (strongest). Default 0.5." });

export const scaleFieldSchema = z
  .enum(["2", "4"])
  .transform((v) => Number(v) as 2 | 4)
  .meta({ description: "Upscale factor, 2 (default) or 4; lowered to keep the long side within 4096 px." });

export const modelFieldSchema = z
  .enum(ALL_ENHANCE_MODE_NAMES, { error: INVALID_ENHANCE_MODE_MESSAGE })
  .meta({ description: MODE_DESCRIPTION });

export const enhanceRequestSchema = z
  .object({
    image: z
      .string()
      .meta({ format: "binary", description: "PNG, JPEG, WebP, AVIF or GIF; at most 10 MB and 25 megapixels." }),
    strength: z.number().min(0).max(1).default(DEFAULT_STRENGTH).optional(),
    scale: z
      .union([z.literal(2), z.literal(4)])
      .default(2)
      .optional(),
    model: z
      .enum(ALL_ENHANCE_MODE_NAMES)
      .default(DEFAULT_ENHANCE_MODE)
      .optional()
      .meta({ description: MODE_DESCRIPTION }),
    prompt: z.string().max(400).optional().meta({
      description: "Steers creative and Stability's conservative route (filtered as generation prompts are).",
    }),
    output_format: outputFormatSchema,
    output_quality: outputQualitySchema,
  })
  .meta({ id: "EnhanceRequest" });

export const enhanceResponseSchema = z
  .object({
    success: z.literal(true),
    url: z.url(),
    original_size: z
      .string()
      .regex(/^\d+x\d+$/)
      .meta({ description: "<width>x<height> of the upload as displayed." }),
    enhanced_size: z.string().regex(/^\d+x\d+$/),
    id: z.string(),
    strength: z.number(),
    scale: z.number().meta({ description: "The scale applied after the 4096 px cap." }),
    model: z.enum(ALL_ENHANCE_MODE_NAMES),
    engine: z.string().meta({
      description: `What produced the pixels: the route, e.g. ${ENGINE_EXAMPLE} or stability:fast; sharp if the neural runtime cannot load.`,
    }),
    ai: z.boolean().meta({ description: "Whether a neural network or an AI service made it, not a plain resize." }),
    generative: z.boolean().meta({ description: "Whether the engine may invent detail the photo does not hold." }),
    usage: z.int().min(0),
    remaining: z.int().min(0),
    expires_at: expiresAtSchema,
    delete_token: deleteTokenSchema,
  })
  .meta({ id: "EnhanceResponse" });

export type EnhanceResponse = z.infer<typeof enhanceResponseSchema>;
