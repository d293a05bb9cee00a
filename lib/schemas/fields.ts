// Field rules shared by the API, the forms and the OpenAPI document.
import { z } from "zod";
import { isValidPrompt } from "./prompt-rules";

// Server code imports the prompt rules from here; client code imports prompt-rules.ts directly to stay zod-free.
export { countCodePoints, isValidPrompt, PROMPT_MAX_CODE_POINTS } from "./prompt-rules";

export const promptSchema = z.string().refine(isValidPrompt, { message: "Prompt must be 1 to 400 characters." }).meta({
  description: "Text description of the image: 1 to 400 Unicode code points, not only whitespace.",
  example: "a lighthouse on a cliff at sunset",
});

export const emailSchema = z.email().max(254);
