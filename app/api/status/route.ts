// GET /api/status – service health and the caller's daily usage.
import { tierView } from "@/lib/console/overview";
import { rejectOtherMethods, withApi } from "@/lib/http/with-api";
import { emptyUsage } from "@/lib/quota/types";
import { buildStatus, serializeStatus } from "@/lib/status/build";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withApi(
  { quota: "status", guard: { bucket: "statusGuard", what: "status" } },
  async ({ caller, svc, quota }) => {
    // A failed read means the store is down: the record still answers, marked degraded, with empty counters.
    const enhanceBucket = svc.buckets.freeEnhancements;
    // DATA_DIR holds the SQLite file or local images unless both live elsewhere (Redis, and Blob or S3).
    const usesDisk = svc.backend.kind === "sqlite" || svc.storage.kind === "local";
    const [usage, enhanceUsage, disk, storageProblem, workTier] = await Promise.all([
      quota.read(),
      caller.plan === "free" ? quota.peek(enhanceBucket) : undefined,
      usesDisk ? svc.checkDisk(svc.config.dataDir, svc.config.images.minFreeDiskMb) : null,
      svc.checkStorage(),
      svc.tier.kind === "inline" ? null : tierView(svc.tier),
    ]);
    const status = buildStatus({
      plan: caller.plan,
      usage: usage ?? quota.usage(),
      enhanceUsage: caller.plan === "free" ? (enhanceUsage ?? emptyUsage(enhanceBucket)) : undefined,
      storeHealthy: usage !== null && enhanceUsage !== null,
      disk,
      storageProblem,
      workTier,
      config: svc.config,
      engines: svc.engines,
      enhancer: svc.enhancer,
      enhanceRoutes: svc.enhanceRoutes,
    });
    return serializeStatus(status);
  },
);

export const { POST, PUT, PATCH, DELETE } = rejectOtherMethods(["GET"]);
