// Runs one AI SDK image call the way every route needs it: one image, no SDK retries (the chain is our retry).
import { generateImage, type ImageModel } from "ai";

type ProviderOptions = NonNullable<Parameters<typeof generateImage>[0]["providerOptions"]>;

// SDK warnings go straight to the console without a request id (and Together's is spurious); our logs cover failures.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export type ImageCall = {
  prompt: string;
  size?: `${number}x${number}`;
  aspectRatio?: `${number}:${number}`;
  seed?: number;
  providerOptions?: ProviderOptions;
};

export async function runImageModel(
  model: ImageModel,
  call: ImageCall,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; metadata: Record<string, unknown> }> {
  const result = await generateImage({
    model,
    prompt: call.prompt,
    n: 1,
    size: call.size,
    aspectRatio: call.aspectRatio,
    seed: call.seed,
    providerOptions: call.providerOptions,
    maxRetries: 0,
    abortSignal: signal,
  });
  return { bytes: result.image.uint8Array, metadata: result.providerMetadata };
}

/** The first image's metadata object under a provider key, e.g. providerMetadata.fal.images[0]. */
export function firstImageMeta(metadata: Record<string, unknown>, key: string): Record<string, unknown> {
  const entry = metadata[key] as { images?: unknown[] } | undefined;
  const first = entry?.images?.[0];
  return first && typeof first === "object" ? (first as Record<string, unknown>) : {};
}

export function seedOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}
