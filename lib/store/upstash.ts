// Production store on Upstash Redis, so quotas, keys and the waitlist are shared by every serverless instance.
import { type Duration, Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { StoreUnavailable } from "@/lib/errors";
import {
  type Bucket,
  type KeyRecord,
  type Store,
  type Take,
  type Usage,
  type WaitlistEntry,
  windowStartOf,
} from "./types";

export type UpstashStoreOptions = { url: string; token: string; timeoutMs?: number };

const KEY_INDEX = "darkroom:keys"; // hash: key id → key hash; also the list of all keys
const recordKey = (hash: string) => `darkroom:key:${hash}`; // hash: the KeyRecord's fields
const WAITLIST = "darkroom:waitlist"; // hash: email → JSON { useCase, createdAt }

// Created once per process (serverless instances reuse module scope across requests).
const clients = new Map<string, Redis>();
const limiters = new Map<string, Ratelimit>();

function clientFor(url: string, token: string, timeoutMs: number): Redis {
  const id = `${url}\n${token}\n${timeoutMs}`;
  let redis = clients.get(id);
  if (!redis) {
    redis = new Redis({
      url,
      token,
      enableTelemetry: false,
      // Values stay the strings we wrote; the default JSON-parses them (a label "123" would come back a number).
      automaticDeserialization: false,
      // A function, so each request gets a fresh deadline. The deadline covers all attempts, and one quick retry
      // absorbs a stale keep-alive socket; a down Redis still fails within timeoutMs.
      signal: () => AbortSignal.timeout(timeoutMs),
      retry: { retries: 1, backoff: () => 50 },
    });
    clients.set(id, redis);
  }
  return redis;
}

function limiterFor(redis: Redis, clientId: string, bucket: Bucket, timeoutMs: number): Ratelimit {
  const id = `${clientId}\n${bucket.name}\n${bucket.limit}\n${bucket.windowMs}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = new Ratelimit({
      redis,
      // fixedWindow keys its counter by Math.floor(Date.now() / window): epoch-aligned, like windowStartOf().
      limiter: Ratelimit.fixedWindow(bucket.limit, `${bucket.windowMs} ms` as Duration),
      prefix: `darkroom:rl:${bucket.name}`,
      analytics: false,
      enableTelemetry: false,
      timeout: timeoutMs,
      // No ephemeral cache. It only caches *blocked* identities, so it can never over-admit, but it under-admits
      // here: a refund made on another instance (or our rollback of a refused take, which pops it) would leave an
      // identity refused until the window resets. Saving one Redis call per refused request isn't worth that.
      ephemeralCache: false,
    });
    limiters.set(id, limiter);
  }
  return limiter;
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreUnavailable) throw err;
    throw new StoreUnavailable(`upstash: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** HGETALL replies come back as a flat [field, value, …] array with deserialization off. */
function pairs(raw: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
  }
  return out;
}

function toKeyRecord(raw: unknown): KeyRecord | null {
  const f = Object.fromEntries(pairs(raw));
  if (!f.id || !f.hash) return null;
  return {
    id: f.id,
    label: f.label ?? "",
    hash: f.hash,
    last4: f.last4 ?? "",
    plan: "pro",
    createdAt: f.createdAt ?? "",
    revokedAt: f.revokedAt ?? null,
  };
}

const byCreated =
  <T extends { createdAt: string }>(tie: (x: T) => string) =>
  (a: T, b: T) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;

export function openUpstashStore(opts: UpstashStoreOptions): Store {
  const timeoutMs = opts.timeoutMs ?? 1500;
  const clientId = `${opts.url}\n${opts.token}\n${timeoutMs}`;
  const redis = clientFor(opts.url, opts.token, timeoutMs);
  const limiterOf = (bucket: Bucket) => limiterFor(redis, clientId, bucket, timeoutMs);

  /** limit() resolves (not rejects) with reason "timeout" and success: true; that must fail closed. */
  const limit = async (bucket: Bucket, id: string, rate: number) => {
    const res = await call("rate limit", () => limiterOf(bucket).limit(id, { rate }));
    if (res.reason === "timeout") throw new StoreUnavailable(`upstash: rate limiter timed out after ${timeoutMs} ms`);
    return res;
  };

  /**
   * Takes back one unit of the window starting at windowStart. The Lua script decrements whichever window is
   * current when it runs and never checks for zero, so undo it if it landed in the next window or went negative
   * (negative only for a refund of nothing); otherwise a later take could be over-admitted.
   */
  const giveBack = async (bucket: Bucket, id: string, windowStart: number) => {
    // A past window's counter is never read again.
    if (windowStartOf(bucket, Date.now()) !== windowStart) return;
    const res = await limit(bucket, id, -1);
    if (res.reset - bucket.windowMs !== windowStart || res.remaining > bucket.limit) await limit(bucket, id, 1);
  };

  const usage = (bucket: Bucket, remaining: number, resetMs: number): Usage => {
    const left = Math.min(bucket.limit, Math.max(0, remaining));
    return { limit: bucket.limit, used: bucket.limit - left, remaining: left, resetMs };
  };

  return {
    kind: "upstash",
    // `now` is not honoured: @upstash/ratelimit reads Date.now() itself.
    async take(bucket, id): Promise<Take> {
      const res = await limit(bucket, id, 1);
      const windowStart = res.reset - bucket.windowMs;
      // The script counts refused attempts too; undo ours so the counter equals units actually taken and a later
      // refund really frees a unit. A failed undo only under-admits, so it doesn't fail the request.
      if (!res.success) await giveBack(bucket, id, windowStart).catch(() => undefined);
      return { ...usage(bucket, res.success ? res.remaining : 0, res.reset), ok: res.success, windowStart };
    },
    async refund(bucket, id, windowStart) {
      await giveBack(bucket, id, windowStart);
    },
    async peek(bucket, id): Promise<Usage> {
      const res = await call("peek", () => limiterOf(bucket).getRemaining(id));
      return usage(bucket, res.remaining, res.reset);
    },

    async insertKey(key) {
      if (await call("insertKey", () => redis.exists(recordKey(key.hash)))) {
        throw new Error(`a key with hash …${key.hash.slice(-8)} already exists`);
      }
      if (!(await call("insertKey", () => redis.hsetnx(KEY_INDEX, key.id, key.hash)))) {
        throw new Error(`a key with id ${key.id} already exists`);
      }
      const fields: Record<string, string> = {
        id: key.id,
        label: key.label,
        hash: key.hash,
        last4: key.last4,
        plan: key.plan,
        createdAt: key.createdAt,
        ...(key.revokedAt ? { revokedAt: key.revokedAt } : {}),
      };
      // One HSET, so a reader sees the whole record or none of it.
      await call("insertKey", () => redis.hset(recordKey(key.hash), fields));
    },
    async findKeyByHash(hash) {
      // Always read from Redis (no cache): a revocation must be visible to every instance on the next request.
      return toKeyRecord(await call("findKeyByHash", () => redis.hgetall(recordKey(hash))));
    },
    async listKeys() {
      const index = pairs(await call("listKeys", () => redis.hgetall(KEY_INDEX)));
      // Issued together, these go out as one auto-pipelined request.
      const records = await call("listKeys", () =>
        Promise.all(index.map(([, hash]) => redis.hgetall(recordKey(hash)))),
      );
      return records
        .map(toKeyRecord)
        .filter((k): k is KeyRecord => k !== null)
        .sort(byCreated((k) => k.id));
    },
    async revokeKey(id, at) {
      const hash = await call("revokeKey", () => redis.hget<string>(KEY_INDEX, id));
      if (!hash) return false;
      // HSETNX: the first revocation wins atomically, without a read-modify-write script.
      await call("revokeKey", () => redis.hsetnx(recordKey(hash), "revokedAt", at));
      return true;
    },

    async addToWaitlist(entry: WaitlistEntry) {
      const value = JSON.stringify({ useCase: entry.useCase, createdAt: entry.createdAt });
      return (await call("addToWaitlist", () => redis.hsetnx(WAITLIST, entry.email, value))) === 1;
    },
    async listWaitlist() {
      const raw = pairs(await call("listWaitlist", () => redis.hgetall(WAITLIST)));
      return raw
        .map(([email, json]): WaitlistEntry => {
          const v = JSON.parse(json) as { useCase?: string | null; createdAt?: string };
          return { email, useCase: v.useCase ?? null, createdAt: v.createdAt ?? "" };
        })
        .sort(byCreated((e) => e.email));
    },

    async ping() {
      try {
        return (await redis.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    async close() {
      // Nothing to release: the HTTP client and limiters are shared by the process.
    },
  } satisfies Store;
}
