// Starts every fake provider on loopback and the environment that points the app's routes at them.
import { BFL_KEY, startBflFake } from "./bfl";
import type { Fake } from "./fake-server";
import { FAL_KEY, startFalFake } from "./fal";
import { OPENAI_KEY, startOpenAiFake } from "./openai";
import { REPLICATE_TOKEN, startReplicateFake } from "./replicate";
import { STABILITY_KEY, startStabilityFake } from "./stability";
import { startTogetherFake, TOGETHER_KEY } from "./together";

export type Fakes = {
  bfl: Fake;
  fal: Fake;
  replicate: Fake;
  together: Fake;
  openai: Fake;
  stability: Fake;
  all: Fake[];
  /** Credentials, base URLs and every model's full chain, in the order of the table. */
  env: Record<string, string>;
  resetAll: () => void;
  closeAll: () => Promise<void>;
};

/** Every model's chain, covering all of its routes; `openai:local-sdxl` exercises an OpenAI-compatible id. */
export const CHAINS = {
  MODEL_ALPHA_PRO: [
    "bfl:flux-pro-1.1",
    "fal:fal-ai/flux-pro/v1.1",
    "replicate:black-forest-labs/flux-1.1-pro",
    "together:black-forest-labs/FLUX.1.1-pro",
  ],
  MODEL_BETA_3: ["openai:gpt-image-1", "openai:local-sdxl"],
  MODEL_GAMMA_XL_1024_V1_0: [
    "stability:stable-diffusion-xl-1024-v1-0",
    "fal:fal-ai/fast-sdxl",
    "replicate:stability-ai/sdxl",
  ],
  MODEL_ALPHA_SCHNELL: [
    "together:black-forest-labs/FLUX.1-schnell",
    "fal:fal-ai/flux/schnell",
    "replicate:black-forest-labs/flux-schnell",
  ],
};

/**
 * Every cloud enhance route the fakes serve (Stability's v2beta upscalers, Replicate predictions, fal's queue), for
 * tests to put into ENHANCE_<MODE> chains; not in `env`, so the default in-process routes stay the default.
 */
export const ENHANCE_REMOTE_ROUTES = [
  "stability:fast",
  "stability:conservative",
  "stability:creative",
  "replicate:nightmareai/real-esrgan",
  "replicate:sczhou/codeformer",
  "replicate:tencentarc/gfpgan",
  "fal:fal-ai/esrgan",
  "fal:fal-ai/aura-sr",
  "fal:fal-ai/clarity-upscaler",
  "fal:fal-ai/codeformer",
] as const;

export async function startAllFakes(): Promise<Fakes> {
  const [bfl, fal, replicate, together, openai, stability] = await Promise.all([
    startBflFake(),
    startFalFake(),
    startReplicateFake(),
    startTogetherFake(),
    startOpenAiFake(),
    startStabilityFake(),
  ]);
  const all = [bfl, fal, replicate, together, openai, stability];
  const env: Record<string, string> = {
    BFL_API_KEY: BFL_KEY,
    BFL_BASE_URL: `${bfl.url}/v1`,
    FAL_KEY,
    FAL_BASE_URL: fal.url,
    REPLICATE_API_TOKEN: REPLICATE_TOKEN,
    REPLICATE_BASE_URL: `${replicate.url}/v1`,
    TOGETHER_API_KEY: TOGETHER_KEY,
    TOGETHER_BASE_URL: `${together.url}/v1`,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    STABILITY_API_KEY: STABILITY_KEY,
    STABILITY_BASE_URL: stability.url,
    ...Object.fromEntries(Object.entries(CHAINS).map(([k, v]) => [k, v.join(",")])),
  };
  return {
    bfl,
    fal,
    replicate,
    together,
    openai,
    stability,
    all,
    env,
    resetAll: () => {
      for (const f of all) f.reset();
    },
    closeAll: async () => {
      await Promise.all(all.map((f) => f.close()));
    },
  };
}
