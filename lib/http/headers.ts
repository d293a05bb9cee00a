// Rate-limit headers in the contract's units: integers, reset as Unix seconds, Retry-After in seconds.
import { DAY_MS, type Usage } from "@/lib/quota/types";

export function rateLimitHeaders(usage: Usage): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(usage.limit),
    "X-RateLimit-Remaining": String(Math.max(0, usage.remaining)),
    "X-RateLimit-Reset": String(Math.ceil(usage.resetMs / 1000)),
  };
}

export function nextUtcMidnightMs(now = Date.now()): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}
