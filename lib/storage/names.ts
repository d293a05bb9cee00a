// The names stored images get, derived from OUTPUT_FORMATS so a new format needs no storage change: 128 random bits
// as 32 hex characters, then the format's extension.
import crypto from "node:crypto";
import { OUTPUT_FORMAT_NAMES, OUTPUT_FORMATS, type OutputFormat } from "@/lib/catalog/output-formats";

/** A regular-expression alternation of every output format's extension, e.g. `(?:png|jpg|webp|avif)`. */
export function extensionsPattern(formats: readonly OutputFormat[] = OUTPUT_FORMAT_NAMES): string {
  return `(?:${formats.map((f) => OUTPUT_FORMATS[f].extension).join("|")})`;
}

/** `<32 hex>.<extension>`: unguessable on its own, and the only shape the storages serve. */
export function newImageFile(format: OutputFormat): { name: string; file: string } {
  const name = crypto.randomBytes(16).toString("hex");
  return { name, file: `${name}.${OUTPUT_FORMATS[format].extension}` };
}
