// Image library fields shared by the generate and enhance 200 bodies and the image records.
import { z } from "zod";
import { DEFAULT_OUTPUT_QUALITY, OUTPUT_FORMAT_NAMES } from "@/lib/catalog/output-formats";

export const outputFormatSchema = z.enum(OUTPUT_FORMAT_NAMES).optional().meta({
  description: "png (default), jpeg, webp or avif; the URL ends in its extension. Metadata is stripped.",
});

export const outputQualitySchema = z
  .int()
  .min(1)
  .max(100)
  .optional()
  .meta({ description: `1 to 100 (default ${DEFAULT_OUTPUT_QUALITY}); ignored for png.` });

export const expiresAtSchema = z.iso.datetime().nullable().meta({
  description:
    "When the image and its record are deleted (ISO 8601, UTC), set by IMAGE_RETENTION_DAYS; null when kept forever.",
});

export const deleteTokenSchema = z.string().meta({
  description:
    "Deletes this image: DELETE /api/images/{id} with the header X-Delete-Token. Shown only here; keep it to delete later.",
});
