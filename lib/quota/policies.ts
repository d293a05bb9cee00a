// Named rate-limit policies: which bucket each endpoint takes from and reports on, per plan.
import type { Config } from "@/lib/config";
import { type Bucket, DAY_MS } from "@/lib/store/types";

const MINUTE_MS = 60_000;

export type Plan = "free" | "pro";
export type PolicyName = "generate" | "enhance" | "status";

export function bucketsOf(limits: Config["limits"]) {
  return {
    freeGenerations: { name: "free-gen", limit: limits.freeGenerationsPerDay, windowMs: DAY_MS },
    freeEnhancements: { name: "free-enh", limit: limits.freeEnhancementsPerDay, windowMs: DAY_MS },
    proRequests: { name: "pro-req", limit: limits.proRequestsPerDay, windowMs: DAY_MS },
    statusGuard: { name: "status-min", limit: limits.statusCallsPerMinute, windowMs: MINUTE_MS },
    waitlistSignups: { name: "waitlist", limit: limits.waitlistSignupsPerDay, windowMs: DAY_MS },
  } satisfies Record<string, Bucket>;
}

export type Buckets = ReturnType<typeof bucketsOf>;

/** The daily bucket an endpoint counts on (and reports in X-RateLimit-*). */
export function dailyBucketOf(buckets: Buckets, policy: PolicyName, plan: Plan): Bucket {
  if (plan === "pro") return buckets.proRequests;
  return policy === "enhance" ? buckets.freeEnhancements : buckets.freeGenerations;
}
