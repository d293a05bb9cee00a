// The Upstash Redis REST client as every part of the store uses it: strings back as written, telemetry off, a fresh
// deadline per request, and retries only where every call made through it is safe to run twice.
import { Redis } from "@upstash/redis";

export type RedisOptions = { url: string; token: string; timeoutMs?: number };

export function createRedisClient(opts: RedisOptions, retry: "safe-to-retry" | "never-retry"): Redis {
  const timeoutMs = opts.timeoutMs ?? 1500;
  return new Redis({
    url: opts.url,
    token: opts.token,
    enableTelemetry: false,
    // Values stay the strings we wrote; the default JSON-parses them (a label "123" would come back a number).
    automaticDeserialization: false,
    // A function, so each request gets a fresh deadline covering all its attempts.
    signal: () => AbortSignal.timeout(timeoutMs),
    // One quick retry absorbs a stale keep-alive socket; a down Redis still fails within timeoutMs.
    retry: retry === "safe-to-retry" ? { retries: 1, backoff: () => 50 } : { retries: 0 },
  });
}
