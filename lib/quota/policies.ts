// Named rate-limit policies: which buckets each endpoint takes from and reports on, per plan.
import type { Plan } from "@/lib/auth/types";
import { type Bucket, DAY_MS } from "@/lib/quota/types";

const MINUTE_MS = 60_000;
/** All the /64s of one IPv6 /48 together get at most this many times the per-IP free limit. */
export const IPV6_48_FACTOR = 4;
/** Job reads (records and event streams) use no daily quota; this guard bounds polling per identity. */
export const JOB_READS_PER_MINUTE = 120;

/** The endpoints that count on a daily bucket: generate and enhance take from it, status only reads it. */
export type Endpoint = "generate" | "enhance" | "status";

/** The configured limits (LIMITS in lib/config.ts) the buckets are made from. */
export type Limits = {
  freeGenerationsPerDay: number;
  freeEnhancementsPerDay: number;
  proRequestsPerDay: number;
  statusCallsPerMinute: number;
  waitlistSignupsPerDay: number;
  waitlistGlobalSignupsPerDay: number;
  freeGlobalGenerationsPerDay: number;
  freeGlobalEnhancementsPerDay: number;
};

export function bucketsOf(limits: Limits) {
  const day = (name: string, limit: number): Bucket => ({ name, limit, windowMs: DAY_MS });
  return {
    freeGenerations: day("free-gen", limits.freeGenerationsPerDay),
    freeEnhancements: day("free-enh", limits.freeEnhancementsPerDay),
    freeGenerationsPer48: day("free-gen-48", limits.freeGenerationsPerDay * IPV6_48_FACTOR),
    freeEnhancementsPer48: day("free-enh-48", limits.freeEnhancementsPerDay * IPV6_48_FACTOR),
    freeGlobalGenerations: day("free-gen-all", limits.freeGlobalGenerationsPerDay),
    freeGlobalEnhancements: day("free-enh-all", limits.freeGlobalEnhancementsPerDay),
    proRequests: day("pro-req", limits.proRequestsPerDay),
    statusGuard: { name: "status-min", limit: limits.statusCallsPerMinute, windowMs: MINUTE_MS } satisfies Bucket,
    jobReadGuard: { name: "jobs-min", limit: JOB_READS_PER_MINUTE, windowMs: MINUTE_MS } satisfies Bucket,
    waitlistSignups: day("waitlist", limits.waitlistSignupsPerDay),
    waitlistSignupsPer48: day("waitlist-48", limits.waitlistSignupsPerDay * IPV6_48_FACTOR),
    waitlistGlobalSignups: day("waitlist-all", limits.waitlistGlobalSignupsPerDay),
  };
}

export type Buckets = ReturnType<typeof bucketsOf>;

/**
 * The daily bucket an endpoint counts on for a plan, and reports in X-RateLimit-*. A Pro key with a limit of its own
 * counts on the same counter against that limit, so a change takes effect on the next request, within the day.
 */
export function dailyBucketOf(buckets: Buckets, endpoint: Endpoint, plan: Plan, keyLimit?: number): Bucket {
  if (plan === "pro") return keyLimit === undefined ? buckets.proRequests : { ...buckets.proRequests, limit: keyLimit };
  return endpoint === "enhance" ? buckets.freeEnhancements : buckets.freeGenerations;
}

/** What one Free unit of an endpoint is also counted against: the caller's IPv6 /48, and the whole free plan. */
export function freeCapsOf(buckets: Buckets, endpoint: "generate" | "enhance") {
  return endpoint === "enhance"
    ? { per48: buckets.freeEnhancementsPer48, global: buckets.freeGlobalEnhancements }
    : { per48: buckets.freeGenerationsPer48, global: buckets.freeGlobalGenerations };
}
