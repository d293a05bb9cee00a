// The generation engine interface: the preview renderer and every provider route implement it.
import type { ModelName, Ratio } from "@/lib/catalog/models";
import type { StyleName } from "@/lib/catalog/styles";
import type { EditInput } from "@/lib/images/edit-input";

export type GenerateJob = {
  /** The caller's prompt, already validated (1–400 code points) and filtered. */
  prompt: string;
  /** The prompt with the style template applied. */
  styledPrompt: string;
  model: ModelName;
  style: StyleName;
  ratio: Ratio;
  width: number;
  height: number;
  seed?: number;
  /**
   * Images wanted from this call (1 to 4, default 1), image i with seed `seed + i`. Routes that batch (the GPU
   * servers) make them all in one call per server; others make one, and the caller asks again for the rest.
   */
  count?: number;
  negativePrompt?: string;
  /** Image-to-image or inpainting: the image at width×height, its canonical mask, and the strength. */
  input?: EditInput;
  requestId: string;
  signal: AbortSignal;
  /** Reports what the engine is doing: provider state while polling, or the step fraction where steps are known. */
  onProgress?: (progress: WorkProgress) => void;
  /**
   * Hears an intermediate image while the engine works, where the engine offers one (ComfyUI's preview frames,
   * A1111's `current_image`): encoded image bytes (PNG or JPEG) at any size. Engines without previews never call it.
   */
  onPreview?: (image: Buffer) => void;
};

/** Progress of running work: `fraction` in [0, 1] when known, and a short human-readable stage. */
export type WorkProgress = { fraction: number | null; stage: string };

export type GeneratedImage = {
  /** PNG bytes, exactly width×height. */
  png: Buffer;
  width: number;
  height: number;
  seed?: number;
  /** The route that actually produced the image when it differs from the engine's id (a fallback chain). */
  engine?: string;
  ai?: boolean;
  /** The other images of a batched call (job.count > 1), in order, each with its own seed. */
  more?: GeneratedImage[];
};

export interface ImageEngine {
  /** Route name as reported to callers, e.g. "preview" or "bfl:flux-pro-1.1". */
  readonly id: string;
  /** True for engines that are real AI models; the preview renderer says false. */
  readonly ai: boolean;
  generate(job: GenerateJob): Promise<GeneratedImage>;
  /** How many of `job.count` images one call would make (1 where the route does not batch). */
  batchSize?(job: GenerateJob): number;
}
