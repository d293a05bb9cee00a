// The built-in preview engine: a deterministic, prompt-seeded procedural renderer that says plainly it is not AI.
import type { GeneratedImage, GenerateJob, ImageEngine } from "@/lib/engines/types";
import { renderPreview } from "./render";

export const previewEngine: ImageEngine = {
  id: "preview",
  ai: false,
  async generate(job: GenerateJob): Promise<GeneratedImage> {
    job.signal.throwIfAborted();
    const { png, seed } = await renderPreview(job, job.signal);
    return { png, width: job.width, height: job.height, seed };
  },
};
