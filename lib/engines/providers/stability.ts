// Stability AI's native v1 REST for SDXL 1.0 (no AI SDK provider exists for it), with native style presets.
import { findStyle } from "@/lib/catalog/styles";
import { ModerationError, ProviderError, retryAfterOf } from "@/lib/engines/failures";
import { seedOf } from "./ai-image";
import type { ProviderCall, ProviderSettings } from "./types";

const DEFAULT_BASE_URL = "https://api.stability.ai";

type Artifact = { base64?: unknown; seed?: unknown; finishReason?: unknown };

/** Default https://api.stability.ai (paths start at /v1); STABILITY_BASE_URL replaces it. */
export function createStabilityCall(engineId: string, settings: ProviderSettings): ProviderCall {
  const url = `${(settings.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")}/v1/generation/${encodeURIComponent(engineId)}/text-to-image`;
  return async ({ job, signal }) => {
    const preset = findStyle(job.style).stabilityPreset;
    const textPrompts = [{ text: preset ? job.prompt : job.styledPrompt, weight: 1 }];
    if (job.negativePrompt) textPrompts.push({ text: job.negativePrompt, weight: -1 });
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
    return { bytes: Buffer.from(artifact.base64, "base64"), seed: seedOf(artifact.seed) ?? job.seed };
  };
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
