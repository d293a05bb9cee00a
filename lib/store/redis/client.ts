// The Redis backend's one client, from one factory, on one of two transports chosen by the URL:
// - https:// — Upstash's REST API (@upstash/redis): strings back as written, telemetry off, a fresh deadline per
//   request, and one quick retry, which every call made through it tolerates (each write is safe to run twice, see
//   lua/);
// - redis:// or rediss:// (REDIS_URL) — any Redis 6.2+ over TCP with the official client (tcp.ts), with the
//   same replies, deadline and retry.
// The backend uses only the commands in RedisClient, so the store's Lua scripts and @upstash/ratelimit's run
// unchanged on both.
import type { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { TcpRedis } from "./tcp";

export type RedisOptions = { url: string; token: string; timeoutMs?: number };

/** The commands the Redis backend and the per-minute guard use; both transports have them. */
export type RedisClient = Pick<
  TcpRedis,
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

export const isTcpRedisUrl = (url: string) => /^rediss?:\/\//i.test(url);

/** REDIS_TIMEOUT_MS's default: one call's deadline, after which the store counts as unavailable. */
export const DEFAULT_TIMEOUT_MS = 1500;

export function createRedisClient(opts: RedisOptions): RedisClient {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (isTcpRedisUrl(opts.url)) return new TcpRedis({ url: opts.url, timeoutMs });
  const rest: RedisClient = new Redis({
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
  return rest;
}

/**
 * The client as @upstash/ratelimit's options type it (the whole REST client). Its fixed window calls only `evalsha`,
 * and `eval` after NOSCRIPT, which both transports have.
 */
export function forRatelimit(client: RedisClient): ConstructorParameters<typeof Ratelimit>[0]["redis"] {
  return client as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"];
}
