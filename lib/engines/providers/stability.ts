// Stability AI's native v1 REST for SDXL 1.0 (no AI SDK provider exists for it), with native style presets.
import { findStyle } from "@/lib/catalog/styles";
import { ModerationError, ProviderError, retryAfterOf } from "@/lib/engines/failures";
import type { GenerateJob } from "@/lib/engines/types";
import { whiteMaskPng } from "@/lib/images/edit-input";
import { seedOf } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

const DEFAULT_BASE_URL = "https://api.stability.ai";

type Artifact = { base64?: unknown; seed?: unknown; finishReason?: unknown };

/** Default https://api.stability.ai (paths start at /v1); STABILITY_BASE_URL replaces it. */
export function createStabilityCall(engineId: string, settings: ProviderSettings): ProviderCall {
  const base = `${(settings.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")}/v1/generation/${encodeURIComponent(engineId)}`;
  const url = `${base}/text-to-image`;
  return async ({ job, signal }) => {
    const preset = findStyle(job.style).stabilityPreset;
    const textPrompts = [{ text: preset ? job.prompt : job.styledPrompt, weight: 1 }];
    if (job.negativePrompt) textPrompts.push({ text: job.negativePrompt, weight: -1 });
    if (job.input) {
      const res = await settings.fetch(job.input.mask ? `${base}/image-to-image/masking` : `${base}/image-to-image`, {
        method: "POST",
        signal,
        headers: { Authorization: `Bearer ${settings.apiKey}`, Accept: "application/json" },
        body: await editForm(job, textPrompts, preset),
      });
      return readArtifact(res, job.seed);
    }
    const res = await settings.fetch(url, {
      method: "POST",
      signal,
      headers: {
        Authorization: `Bearer ${settings.apiKey}`,
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify({
        text_prompts: textPrompts,
        width: job.width,
        height: job.height,
        samples: 1,
        steps: 30,
        cfg_scale: 7,
        // Stability treats seed 0 as "random", which is also what omitting it means.
        ...(job.seed !== undefined ? { seed: job.seed } : {}),
        // The native preset replaces our template, so the style is not applied twice.
        ...(preset ? { style_preset: preset } : {}),
      }),
    });
    return readArtifact(res, job.seed);
  };
}

/**
 * v1 image-to-image (multipart): init_image with IMAGE_STRENGTH, where image_strength is how much of the image to
 * keep (1 − our strength); /masking adds mask_image read as MASK_IMAGE_WHITE (white is repainted).
 */
async function editForm(job: GenerateJob, textPrompts: { text: string; weight: number }[], preset?: string) {
  const input = job.input as NonNullable<GenerateJob["input"]>;
  const form = new FormData();
  form.append("init_image", new Blob([new Uint8Array(input.png)], { type: "image/png" }), "init_image.png");
  if (input.mask) {
    form.append("mask_source", "MASK_IMAGE_WHITE");
    const mask = await whiteMaskPng(input.mask);
    form.append("mask_image", new Blob([new Uint8Array(mask)], { type: "image/png" }), "mask_image.png");
  } else {
    form.append("init_image_mode", "IMAGE_STRENGTH");
    form.append("image_strength", String(Math.min(1, Math.max(0, 1 - input.strength))));
  }
  textPrompts.forEach((p, i) => {
    form.append(`text_prompts[${i}][text]`, p.text);
    form.append(`text_prompts[${i}][weight]`, String(p.weight));
  });
  form.append("samples", "1");
  form.append("steps", "30");
  form.append("cfg_scale", "7");
  if (job.seed !== undefined) form.append("seed", String(job.seed));
  if (preset) form.append("style_preset", preset);
  return form;
}

/** The first artifact of a v1 answer, with filtered and malformed answers thrown as failures. */
async function readArtifact(res: Response, seed: number | undefined) {
  const text = await res.text();
  if (!res.ok) {
    const kind = res.status === 429 || res.status === 402 ? "capacity" : "http";
    throw new ProviderError(
      kind,
      `stability ${res.status}: ${text.slice(0, 500)}`,
      res.status,
      retryAfterOf(res.headers),
    );
  }
  const artifact = firstArtifact(text);
  // Stability answers 200 with a blurred image when its filter trips; that must never reach a caller.
  if (artifact.finishReason === "CONTENT_FILTERED") throw new ModerationError("stability: CONTENT_FILTERED");
  if (artifact.finishReason !== "SUCCESS" || typeof artifact.base64 !== "string") {
    throw new ProviderError("malformed", `stability: finishReason ${String(artifact.finishReason)}`);
  }
  return { bytes: Buffer.from(artifact.base64, "base64"), seed: seedOf(artifact.seed) ?? seed };
}

function firstArtifact(text: string): Artifact {
  try {
    const body = JSON.parse(text) as { artifacts?: unknown };
    const first = Array.isArray(body.artifacts) ? (body.artifacts[0] as unknown) : undefined;
    if (first && typeof first === "object") return first as Artifact;
  } catch {
    // fall through to the malformed answer below
  }
  throw new ProviderError("malformed", "stability: no artifacts in the answer");
}
