// Runs one AI SDK image call the way every route needs it: one image (or n, where the route batches: the SDK splits
// them by the model's maxImagesPerCall), no SDK retries (the chain is our retry).
import { generateImage, type ImageModel } from "ai";
import type { GenerateJob } from "@/lib/engines/types";
import { whiteMaskPng } from "@/lib/images/edit-input";

type ProviderOptions = NonNullable<Parameters<typeof generateImage>[0]["providerOptions"]>;

// SDK warnings go straight to the console without a request id (and Together's is spurious); our logs cover failures.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export type ImageCall = {
  prompt: string;
  size?: `${number}x${number}`;
  aspectRatio?: `${number}:${number}`;
  seed?: number;
  providerOptions?: ProviderOptions;
  /** Image input: the SDK's image prompt sends them each provider's way (multipart, input_image, image_url…). */
  images?: Uint8Array[];
  mask?: Uint8Array;
};

export async function runImageModel(
  model: ImageModel,
  call: ImageCall,
  signal: AbortSignal,
  n = 1,
): Promise<{ bytes: Uint8Array; metadata: Record<string, unknown>; more: Uint8Array[] }> {
  const result = await generateImage({
    model,
    prompt: call.images ? { text: call.prompt, images: call.images, mask: call.mask } : call.prompt,
    n,
    size: call.size,
    aspectRatio: call.aspectRatio,
    seed: call.seed,
    providerOptions: call.providerOptions,
    maxRetries: 0,
    abortSignal: signal,
  });
  const [first, ...more] = result.images;
  return { bytes: first.uint8Array, metadata: result.providerMetadata, more: more.map((image) => image.uint8Array) };
}

/** The edit's image, and its mask in the white-means-change convention (BFL, fal, Replicate). */
export async function whiteMaskEdit(job: GenerateJob): Promise<Pick<ImageCall, "images" | "mask">> {
  if (!job.input) return {};
  const mask = job.input.mask ? await whiteMaskPng(job.input.mask) : undefined;
  return { images: [job.input.png], mask };
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
