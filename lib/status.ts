// The status record: health, the caller's daily counter, and the published models and styles.
import type { Context } from "@/lib/api/with-api";
import { MODELS, RATIOS } from "@/lib/catalog/models";
import { STYLE_PRESETS } from "@/lib/catalog/styles";
import { describeEngines, hasFailingRoute } from "@/lib/engines";
import { describeEnhanceEngine } from "@/lib/enhance/engine-registry";
import { API_VERSION, type StatusResponse } from "@/lib/schemas/status";
import { type Bucket, emptyUsage, type Usage } from "@/lib/store/types";

export const STATUS_STYLES = STYLE_PRESETS.map((s) => ({ name: s.name, description: s.description }));
// The style catalogue is the bulk of the record and never changes, so it is encoded once.
const STYLES_JSON = JSON.stringify(STATUS_STYLES);

/** JSON text of a status record, with the constant style catalogue spliced in rather than re-encoded. */
export function serializeStatus(body: Record<string, unknown>): string {
  const { styles, ...rest } = body;
  if (styles !== STATUS_STYLES) return JSON.stringify(body);
  return `${JSON.stringify(rest).slice(0, -1)},"styles":${STYLES_JSON}}`;
}

export async function buildStatus(ctx: Context): Promise<StatusResponse> {
  const { store, buckets } = ctx.svc;
  // A failed read means the store is down: the record still answers, marked degraded, with an empty counter.
  let healthy = true;
  const read = (bucket: Bucket) =>
    store.peek(bucket, ctx.caller.identity).catch((): Usage => {
      healthy = false;
      return emptyUsage(bucket);
    });
  const [usage, enhance] = await Promise.all([
    read(ctx.bucket),
    ctx.caller.plan === "free" ? read(buckets.freeEnhancements) : Promise.resolve(undefined),
  ]);
  ctx.reportUsage(usage);
  return {
    // A provider whose last calls all failed degrades the service as much as a store outage does.
    status: healthy && !hasFailingRoute() ? "ok" : "degraded",
    version: API_VERSION,
    usage_today: usage.used,
    limit_today: usage.limit,
    remaining: usage.remaining,
    reset_at: new Date(usage.resetMs).toISOString(),
    plan: ctx.caller.plan,
    ...(enhance && {
      enhance: { usage_today: enhance.used, limit_today: enhance.limit, remaining: enhance.remaining },
    }),
    models: describeEngines().map((m) => ({
      ...m,
      family: MODELS[m.name].family,
      description: MODELS[m.name].description,
    })),
    styles: STATUS_STYLES,
    ratios: [...RATIOS],
    upload: { max_bytes: ctx.svc.config.upload.maxBytes, max_pixels: ctx.svc.config.upload.maxPixels },
    enhance_engine: describeEnhanceEngine(ctx.svc.config),
  };
}
