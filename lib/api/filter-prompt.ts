// The content safety check of everything a generation sends to a provider: 422 when it is refused.
import { checkPrompt } from "@/lib/filter/content-filter";
import { ApiError } from "./errors";

export function assertPromptAllowed(input: { prompt: string; negativePrompt?: string }): void {
  const texts = [input.prompt, input.negativePrompt].filter((t): t is string => Boolean(t));
  if (texts.some((t) => !checkPrompt(t).allowed) || (texts.length > 1 && !checkPrompt(texts.join("\n")).allowed)) {
    throw new ApiError("content_filtered", "The prompt was rejected by the content safety filter. Please rephrase it.");
  }
}
