// Enhance constants without zod, so the enhance page can share them with the server without shipping zod.
export const ENHANCE_SCALES = [2, 4] as const;
export const DEFAULT_STRENGTH = 0.5;
export const MAX_OUTPUT_SIDE = 4096;
/** What the upload check accepts; everything else is invalid_image whatever its Content-Type says. */
export const ACCEPTED_IMAGE_FORMATS = ["png", "jpeg", "webp", "avif", "gif"] as const;
export const ACCEPTED_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/avif", "image/gif"] as const;
