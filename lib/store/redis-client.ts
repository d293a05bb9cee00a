// The Redis backend's one client, from one factory. Its first transport is Upstash's REST API (@upstash/redis):
// strings back as written, telemetry off, a fresh deadline per request, and one quick retry, which every call made
// through it tolerates (each write is safe to run twice, see upstash-scripts.ts). The backend uses only the
// commands in RedisClient, so another transport needs to offer just these.
import { Redis } from "@upstash/redis";

export type RedisOptions = { url: string; token: string; timeoutMs?: number };

/** The commands the Redis backend and the per-minute guard use. */
export type RedisClient = Pick<
  Redis,
  | "get"
  | "set"
  | "del"
  | "exists"
  | "hget"
  | "hgetall"
  | "hset"
  | "hsetnx"
  | "hdel"
  | "hlen"
  | "hmget"
  | "lrange"
  | "zrange"
  | "zrem"
  | "zscore"
  | "ping"
  | "createScript"
  | "eval"
  | "evalsha"
  | "scriptLoad"
>;

export function createRedisClient(opts: RedisOptions): Redis {
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
    retry: { retries: 1, backoff: () => 50 },
  });
}
