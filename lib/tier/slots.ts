// Slots counted in Redis, shared by every worker of the work tier (GPU servers' caps, each key's running jobs): a
// sorted set per name of holder → the time its hold lapses. A holder renews its hold while it runs, so a worker that dies frees its slots within SLOT_TTL_MS.
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { SharedSlots } from "@/lib/engines/local/slots";
import { describeError, log } from "@/lib/log";

/** How long a hold lasts unrenewed, and how often its holder renews it. */
export const SLOT_TTL_MS = 30_000;
const RENEW_EVERY_MS = 10_000;

// KEYS[1] the name's set; ARGV: cap, holder, ttl ms. Redis's own clock, so workers' clocks need not agree.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

// KEYS[1] the name's set; ARGV: holder, ttl ms. Renews a hold that still exists.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

/** The name's set: names may be URLs, so they are hashed into the key. */
export function slotKeyOf(name: string): string {
  return `darkroom:tier:slots:${crypto.createHash("sha256").update(name).digest("hex").slice(0, 32)}`;
}

/** `limit` slots per name, counted on the Redis that `connect` opens on first use. */
export function createRedisSlots(connect: () => Redis, limit: number): SharedSlots {
  let redis: Redis | undefined;
  return {
    async tryTake(name) {
      redis ??= connect();
      const key = slotKeyOf(name);
      const holder = crypto.randomBytes(12).toString("hex");
      const taken = await redis.eval(TAKE, 1, key, limit, holder, SLOT_TTL_MS);
      if (taken !== 1) return null;
      return holdOf(redis, key, holder);
    },
  };
}

/** The function that frees a hold, which renews it until then. */
function holdOf(redis: Redis, key: string, holder: string): () => void {
  const renew = setInterval(() => {
    redis
      .eval(RENEW, 1, key, holder, SLOT_TTL_MS)
      .catch((err) => log.warn("work tier: renewing a slot failed", describeError(err)));
  }, RENEW_EVERY_MS);
  renew.unref();
  let freed = false;
  return () => {
    if (freed) return;
    freed = true;
    clearInterval(renew);
    // A failed release only keeps the slot until its hold lapses.
    redis.zrem(key, holder).catch((err) => log.warn("work tier: freeing a slot failed", describeError(err)));
  };
}
