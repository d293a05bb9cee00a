// One enhancement asked of one enhance route, for the route tests: the input at its size, the target at `scale`,
// and the progress the route reports collected in `progress`.
import type { WorkProgress } from "@/lib/engines/types";
import type { EnhanceRouteJob } from "@/lib/enhance/routes/types";

export function enhanceRouteJob(
  input: { image: Buffer; width: number; height: number; requestId: string },
  overrides: Partial<EnhanceRouteJob> = {},
): EnhanceRouteJob & { progress: WorkProgress[] } {
  const progress: WorkProgress[] = [];
  const scale = overrides.scale ?? 2;
  return {
    ...input,
    targetWidth: input.width * scale,
    targetHeight: input.height * scale,
    scale,
    mode: "fast",
    strength: 1,
    faceRestorer: "gfpgan",
    signal: new AbortController().signal,
    onProgress: (p) => progress.push(p),
    progress,
    ...overrides,
  };
}
