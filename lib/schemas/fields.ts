// Field rules shared by the API, the forms and the OpenAPI document.
import { z } from "zod";

export const PROMPT_MAX_CODE_POINTS = 400;

/** Characters as the contract counts them: Unicode code points, not UTF-16 units. */
export function countCodePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function isValidPrompt(text: unknown): text is string {
  if (typeof text !== "string") return false;
  const n = countCodePoints(text);
  return n >= 1 && n <= PROMPT_MAX_CODE_POINTS && text.trim() !== "";
}

export const promptSchema = z
  .string()
  .refine(isValidPrompt, { message: "Prompt must be 1 to 400 characters." })
  .meta({
    description: "Text description of the image: 1 to 400 Unicode code points, not only whitespace.",
    example: "a lighthouse on a cliff at sunset",
  });

export const emailSchema = z.email().max(254);
