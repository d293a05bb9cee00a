// OpenAI gpt-image-1 (the DALL·E 3 successor) and OpenAI-compatible images endpoints through @ai-sdk/openai.
import { createOpenAI } from "@ai-sdk/openai";
import type { Ratio } from "@/lib/catalog/models";
import { sizeForImage, sizingOf } from "@/lib/engines/sizing";
import { alphaMaskedPng } from "@/lib/images/edit-input";
import { runImageModel } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

/** gpt-image-1's three sizes; 16:9 and 9:16 are generated at 3:2 / 2:3 and centre-cropped afterwards. */
export const OPENAI_SIZES: Record<Ratio, `${number}x${number}`> = {
  "1:1": "1024x1024",
  "16:9": "1536x1024",
  "9:16": "1024x1536",
};

/** Default https://api.openai.com/v1; OPENAI_BASE_URL points it at LocalAI or a gateway. */
export function createOpenAiCall(modelId: string, settings: ProviderSettings): ProviderCall {
  const model = createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, fetch: settings.fetch }).image(
    modelId,
  );
  return async ({ job, signal }) => {
    // gpt-image-1 takes neither a seed nor a negative prompt; several images are one call (ROUTE_BATCHING).
    const n = Math.max(1, job.count ?? 1);
    const answer = ({ bytes, more }: { bytes: Uint8Array; more: Uint8Array[] }) => ({
      bytes,
      ...(more.length > 0 && { more: more.map((extra) => ({ bytes: extra })) }),
    });
    if (!job.input) {
      return answer(await runImageModel(model, { prompt: job.styledPrompt, size: OPENAI_SIZES[job.ratio] }, signal, n));
    }
    // /images/edits: the image, and a mask whose transparent pixels are the ones to change, both of its size.
    const { input } = job;
    const size = sizeForImage(
      sizingOf({ id: "openai", provider: "openai", modelId: "" }),
      input,
      input.width * input.height,
    );
    const mask = input.mask ? await alphaMaskedPng(input, input.mask) : undefined;
    return answer(
      await runImageModel(
        model,
        { prompt: job.styledPrompt, size: `${size.width}x${size.height}`, images: [input.png], mask },
        signal,
        n,
      ),
    );
  };
}
