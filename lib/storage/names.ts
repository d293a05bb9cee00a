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

/**
 * Image ids: the 32 hex characters, with the file's extension for formats other than PNG (whose ids predate
 * formats). The only shapes the storages open or delete, so no id can reach outside their folder or prefix.
 */
const IMAGE_ID = new RegExp(
  `^[a-f0-9]{32}(?:\\.${extensionsPattern(OUTPUT_FORMAT_NAMES.filter((f) => f !== "png"))})?$`,
);

export function isImageId(id: string): boolean {
  return IMAGE_ID.test(id);
}

/** The id put() returns for a new file: PNG's without its extension. */
export function imageIdOf(name: string, file: string, format: OutputFormat): string {
  return format === "png" ? name : file;
}

/** The stored file name of an image id (PNG ids gain their extension). */
export function fileOfImageId(id: string): string {
  return id.includes(".") ? id : `${id}.png`;
}

/** Keys of temporary objects: chosen by the caller, a safe file and object name everywhere. */
const TEMP_KEY = /^[A-Za-z0-9_-]{16,128}$/;

export function isTempKey(key: string): boolean {
  return TEMP_KEY.test(key);
}

/** Temporary objects older than this are removed by the sweep, which runs hourly: none outlives a day. */
export const TEMP_MAX_AGE_MS = 22 * 60 * 60_000;
