// Which routes make several images of one request in one call, and how. One table: the chain asks it, the docs
// (gpus.md, image-input.md) say the same. A route batches only where each image keeps a seed of its own (or the
// provider has no seeds at all); elsewhere the images are separate calls, each with its own seed.
import type { ProviderName } from "@/lib/catalog/providers";
import type { LocalKind } from "./routes";

export const ROUTE_BATCHING: Record<LocalKind | ProviderName, string | false> = {
  a1111: "batch_size n in one txt2img/img2img per server; image i has seed + i (info.all_seeds)",
  comfyui: "one prompt per server with a sampler branch per image, seed + i each",
  // gpt-image models take n (up to 10 a call, the SDK's maxImagesPerCall) and have no seeds.
  openai: "n in one /images/generations or /images/edits call",
  // One seed per call: several images in one call could not be made again one by one.
  bfl: false,
  fal: false,
  replicate: false,
  together: false,
  stability: false,
};

export function batches(provider: string): boolean {
  return Boolean((ROUTE_BATCHING as Record<string, string | false>)[provider]);
}
