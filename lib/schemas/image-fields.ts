// Image library fields shared by the generate and enhance 200 bodies and the image records.
import { z } from "zod";

export const expiresAtSchema = z.iso.datetime().nullable().meta({
  description:
    "When the image and its record are deleted (ISO 8601, UTC), set by IMAGE_RETENTION_DAYS; null when kept forever.",
});

export const deleteTokenSchema = z.string().meta({
  description:
    "Deletes this image: DELETE /api/images/{id} with the header X-Delete-Token. Shown only here; keep it to delete later.",
});
