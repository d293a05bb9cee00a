// The built-in preview engine: a deterministic, prompt-seeded procedural renderer that says plainly it is not AI.
// Given an image it is a labelled transform: the rendered scene blended over the image by `strength` (0 returns
// the image itself, the change grows monotonically with it); generateImage then keeps what the mask keeps.
import sharp from "sharp";
import type { GeneratedImage, GenerateJob, ImageEngine } from "@/lib/engines/types";
import { renderPreview } from "./render";

export const previewEngine: ImageEngine = {
  id: "preview",
  ai: false,
  async generate(job: GenerateJob): Promise<GeneratedImage> {
    job.signal.throwIfAborted();
    const { png, seed } = await renderPreview(job, job.signal);
    if (!job.input) return { png, width: job.width, height: job.height, seed };
    const scene = await sharp(png).removeAlpha().raw().toBuffer();
    const blended = blendTowards(job.input.rgb, scene, job.input.strength);
    const out = await sharp(blended, { raw: { width: job.width, height: job.height, channels: 3 } })
      .png({ compressionLevel: 3, adaptiveFiltering: false })
      .toBuffer();
    return { png: out, width: job.width, height: job.height, seed };
  },
};

/** image + strength·(scene − image), per channel: exactly the image at 0, the scene at 1. */
export function blendTowards(image: Buffer, scene: Buffer, strength: number): Buffer {
  if (strength <= 0) return Buffer.from(image);
  const out = Buffer.alloc(image.length);
  for (let i = 0; i < image.length; i++) out[i] = Math.round(image[i] + (scene[i] - image[i]) * strength);
  return out;
}
