// The output formats a page can ask for (contract 1.2: `output_format` on generate and enhance), and what a URL's
// extension says an image is, for download names.
export const OUTPUT_FORMATS = ["png", "jpeg", "webp", "avif"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = "png";

/** One line per format, for the pickers' hint. */
export const FORMAT_HINTS: Record<OutputFormat, string> = {
  png: "PNG · lossless, largest files",
  jpeg: "JPEG · small, no transparency",
  webp: "WebP · small, widely supported",
  avif: "AVIF · smallest, newer browsers",
};

/** The form fields for a format: none for PNG, so a request that changes nothing stays a 1.1 request. */
export function formatFields(format: OutputFormat): Record<string, string> {
  return format === DEFAULT_OUTPUT_FORMAT ? {} : { output_format: format };
}

/** The file extension of an image URL ("png" when it has none), for the name a download is saved under. */
export function extensionOf(url: string): string {
  const ext = /\.([a-z0-9]{2,5})(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  if (!ext) return "png";
  return ext === "jpeg" ? "jpg" : ext;
}
