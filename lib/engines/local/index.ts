// Local GPU routes: `comfyui:<workflow>` and `a1111:<checkpoint>`, each served by the pool of its kind.
import type { ProviderCall } from "@/lib/engines/providers/types";
import type { LocalKind } from "@/lib/engines/routes";
import { createA1111Call } from "./a1111";
import { createComfyUiCall } from "./comfyui";
import type { GpuPools, ServerHealth } from "./pool";
import type { LocalSettings } from "./settings";

export function createLocalCall(
  kind: LocalKind,
  name: string,
  settings: LocalSettings,
  poolFor: GpuPools,
): ProviderCall {
  const { comfyui, a1111 } = settings;
  if (kind === "comfyui" && comfyui) return createComfyUiCall(name, comfyui, poolFor(kind, comfyui.urls));
  if (kind === "a1111" && a1111) return createA1111Call(name, a1111, poolFor(kind, a1111.urls));
  // Config refuses such a route at start; reaching this is a bug.
  throw new Error(`${kind}:${name} has no servers configured`);
}

export type PoolDescription = { kind: LocalKind; servers: ServerHealth[] };

/** Each configured pool's servers by position, never by URL: status is public. */
export function describeLocalPools(settings: LocalSettings, poolFor: GpuPools): PoolDescription[] {
  const pools: PoolDescription[] = [];
  if (settings.comfyui) pools.push({ kind: "comfyui", servers: poolFor("comfyui", settings.comfyui.urls).describe() });
  if (settings.a1111) pools.push({ kind: "a1111", servers: poolFor("a1111", settings.a1111.urls).describe() });
  return pools;
}
