// The content safety check of everything a generation sends to a provider: 422 when it is refused.
import { checkGenerateText } from "@/lib/filter/content-filter";
import { ApiError } from "@/lib/schemas/api-error";

export function assertPromptAllowed(input: { prompt: string; negativePrompt?: string }): void {
  if (!checkGenerateText(input).allowed) {
    throw new ApiError("content_filtered", "The prompt was rejected by the content safety filter. Please rephrase it.");
  }
}
