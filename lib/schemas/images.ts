// GET /api/images and DELETE /api/images/{id}: the image record as the API shows it, and the two answers.
import { z } from "zod";
import { OUTPUT_FORMAT_NAMES } from "@/lib/catalog/output-formats";
import { expiresAtSchema } from "./image-fields";

export const IMAGES_DEFAULT_LIMIT = 20;
export const IMAGES_MAX_LIMIT = 100;

export const imageSchema = z
  .object({
    id: z.string().meta({ description: "The image id, as in the generate or enhance answer." }),
    kind: z.enum(["generate", "enhance"]),
    url: z.url(),
    width: z.int().positive(),
    height: z.int().positive(),
    bytes: z.int().min(0).meta({ description: "Size of the PNG." }),
    created_at: z.iso.datetime(),
    expires_at: expiresAtSchema,
    model: z.string(),
    engine: z.string().optional().meta({ description: "What produced the pixels, as in the 200 body." }),
    ai: z.boolean().optional().meta({ description: "generate only: false for the built-in preview renderer." }),
    prompt: z.string().optional().meta({ description: "generate only." }),
    style: z.string().optional().meta({ description: "generate only." }),
    ratio: z.string().optional().meta({ description: "generate only." }),
    seed: z.int().min(0).optional().meta({ description: "generate only, when known." }),
    strength: z.number().optional().meta({ description: "enhance, and generate from an image (1.2)." }),
    masked: z
      .boolean()
      .optional()
      .meta({ description: "generate from an image: true when a mask limited the change." }),
    format: z
      .enum(OUTPUT_FORMAT_NAMES)
      .optional()
      .meta({ description: "1.2: the file's format (png, jpeg, webp, avif)." }),
    source_image_id: z
      .string()
      .optional()
      .meta({ description: "1.2: the library image (image_id) this one was made from." }),
    scale: z.number().optional().meta({ description: "enhance only: the scale applied." }),
    original_size: z
      .string()
      .regex(/^\d+x\d+$/)
      .optional()
      .meta({ description: "enhance only." }),
    enhanced_size: z
      .string()
      .regex(/^\d+x\d+$/)
      .optional()
      .meta({ description: "enhance only." }),
  })
  .meta({ id: "Image" });

export type ImageJson = z.infer<typeof imageSchema>;

export const imageListResponseSchema = z
  .object({
    success: z.literal(true),
    images: z.array(imageSchema).meta({ description: "The key's own images, newest first." }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .meta({ id: "ImageList" });

export type ImageListResponse = z.infer<typeof imageListResponseSchema>;

export const imageDeleteResponseSchema = z
  .object({ success: z.literal(true), id: z.string() })
  .meta({ id: "ImageDeleted" });

export type ImageDeleteResponse = z.infer<typeof imageDeleteResponseSchema>;

export const imageListQuerySchema = z
  .object({
    limit: z
      .int()
      .min(1)
      .optional()
      .meta({ description: `Images per page, 1 to ${IMAGES_MAX_LIMIT} (larger values are capped); default 20.` }),
    cursor: z.string().optional().meta({ description: "`next_cursor` from the previous page." }),
  })
  .meta({ id: "ImageListQuery" });
