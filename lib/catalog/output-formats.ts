// The image formats generate and enhance can answer in: one row per format, with what the URL and CDN use.
export const OUTPUT_FORMATS = {
  png: { extension: "png", contentType: "image/png", lossy: false },
  jpeg: { extension: "jpg", contentType: "image/jpeg", lossy: true },
  webp: { extension: "webp", contentType: "image/webp", lossy: true },
  avif: { extension: "avif", contentType: "image/avif", lossy: true },
} as const;

export type OutputFormat = keyof typeof OUTPUT_FORMATS;
export const OUTPUT_FORMAT_NAMES = Object.keys(OUTPUT_FORMATS) as [OutputFormat, ...OutputFormat[]];
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = "png";
/** Ignored for png, which is lossless. */
export const DEFAULT_OUTPUT_QUALITY = 90;

export type OutputEncoding = { format: OutputFormat; quality: number };
export const DEFAULT_OUTPUT: OutputEncoding = { format: DEFAULT_OUTPUT_FORMAT, quality: DEFAULT_OUTPUT_QUALITY };

/** The format whose URL extension is `extension` ("jpg" → jpeg), or undefined. */
export function formatOfExtension(extension: string): OutputFormat | undefined {
  return OUTPUT_FORMAT_NAMES.find((f) => OUTPUT_FORMATS[f].extension === extension);
}
