// The generation providers a model route may name, and the environment variables that configure each one.
export const PROVIDERS = ["bfl", "openai", "stability", "fal", "replicate", "together"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** The environment variables that configure each provider. */
export const PROVIDER_ENV: Record<ProviderName, { key: string; baseUrl: string }> = {
  bfl: { key: "BFL_API_KEY", baseUrl: "BFL_BASE_URL" },
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  stability: { key: "STABILITY_API_KEY", baseUrl: "STABILITY_BASE_URL" },
  fal: { key: "FAL_KEY", baseUrl: "FAL_BASE_URL" },
  replicate: { key: "REPLICATE_API_TOKEN", baseUrl: "REPLICATE_BASE_URL" },
  together: { key: "TOGETHER_API_KEY", baseUrl: "TOGETHER_BASE_URL" },
};

/** Operator-run GPU servers (ComfyUI, AUTOMATIC1111), each kind served by a pool of servers. */
export const LOCAL_KINDS = ["comfyui", "a1111"] as const;
export type LocalKind = (typeof LOCAL_KINDS)[number];
/** The variable that lists each kind's servers. */
export const LOCAL_ENV: Record<LocalKind, string> = { comfyui: "COMFYUI_URLS", a1111: "A1111_URLS" };

/** A route to a real model: `provider:model-id`. */
export type ProviderRoute = `${ProviderName}:${string}`;
