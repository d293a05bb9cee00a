// Production store on Upstash Redis, so quotas, keys and the waitlist are shared by every serverless instance.
// Quota windows are plain counters, keyed as @upstash/ratelimit's fixed window keyed them, so counts carry over.
import crypto from "node:crypto";
import type { Redis } from "@upstash/redis";
import type { KeyRecord } from "@/lib/auth/types";
import type { WaitlistEntry } from "@/lib/console/types";
import { StoreUnavailable } from "@/lib/errors";
import { type Bucket, type Take, type Usage, windowStartOf } from "@/lib/quota/types";
import type { Store } from "@/lib/store/types";
import { createRedisClient } from "./redis-client";
import { ADD_TO_WAITLIST, INSERT_KEY, REFUND, TAKE } from "./upstash-scripts";

export type UpstashStoreOptions = { url: string; token: string; timeoutMs?: number };

export const KEY_INDEX = "darkroom:keys"; // hash: key id → key hash; also the list of all keys
export const recordKey = (hash: string) => `darkroom:key:${hash}`; // hash: the KeyRecord's fields
export const WAITLIST = "darkroom:waitlist"; // hash: email → JSON { useCase, createdAt }
/** The units taken from `bucket` by `id` in the window starting at `windowStart`. */
const counterKey = (bucket: Bucket, id: string, windowStart: number) =>
  `darkroom:rl:${bucket.name}:${id}:${windowStart / bucket.windowMs}`;
/** Where a script remembers its answer to one call, so a retried request doesn't apply the call twice. */
export const markerKey = () => `darkroom:op:${crypto.randomUUID()}`;
export const MARKER_TTL_MS = 60_000;

// Created once per process (serverless instances reuse module scope across requests).
const clients = new Map<string, { redis: Redis; scripts: Scripts }>();

function createScripts(redis: Redis) {
  return {
    take: redis.createScript<number>(TAKE),
    refund: redis.createScript<number>(REFUND),
    insertKey: redis.createScript<string>(INSERT_KEY),
    addToWaitlist: redis.createScript<number>(ADD_TO_WAITLIST),
  };
}
type Scripts = ReturnType<typeof createScripts>;

/** The process's client for one Upstash database (shared with the image store, lib/store/images-upstash.ts). */
export function clientFor(url: string, token: string, timeoutMs: number) {
  const id = `${url}\n${token}\n${timeoutMs}`;
  let client = clients.get(id);
  if (!client) {
    // Every write is safe to repeat (see upstash-scripts.ts).
    const redis = createRedisClient({ url, token, timeoutMs }, "safe-to-retry");
    client = { redis, scripts: createScripts(redis) };
    clients.set(id, client);
  }
  return client;
}

export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
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
export function pairs(raw: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
  }
  return out;
}

export function toKeyRecord(raw: unknown): KeyRecord | null {
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
    ...(f.email && { email: f.email }),
    ...(f.dailyLimit && { dailyLimit: Number(f.dailyLimit) }),
    ...(f.webhookSecret && { webhookSecret: f.webhookSecret }),
  };
}

export const byCreated =
  <T extends { createdAt: string }>(tie: (x: T) => string) =>
  (a: T, b: T) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;

export function openUpstashStore(opts: UpstashStoreOptions): Store {
  const timeoutMs = opts.timeoutMs ?? 1500;
  const { redis, scripts } = clientFor(opts.url, opts.token, timeoutMs);

  const usageOf = (bucket: Bucket, used: number, windowStart: number): Usage => {
    const clamped = Math.min(bucket.limit, Math.max(0, used));
    return {
      limit: bucket.limit,
      used: clamped,
      remaining: bucket.limit - clamped,
      resetMs: windowStart + bucket.windowMs,
    };
  };

  return {
    kind: "upstash",
    async take(bucket, id, now = Date.now()): Promise<Take> {
      const windowStart = windowStartOf(bucket, now);
      const answer = await call("take", () =>
        scripts.take.exec(
          [counterKey(bucket, id, windowStart), markerKey()],
          [String(bucket.limit), String(bucket.windowMs), String(MARKER_TTL_MS)],
        ),
      );
      const ok = answer > 0;
      return { ...usageOf(bucket, Math.abs(answer), windowStart), ok, windowStart };
    },
    async refund(bucket, id, windowStart) {
      await call("refund", () =>
        scripts.refund.exec([counterKey(bucket, id, windowStart), markerKey()], [String(MARKER_TTL_MS)]),
      );
    },
    async peek(bucket, id, now = Date.now()): Promise<Usage> {
      const windowStart = windowStartOf(bucket, now);
      const used = await call("peek", () => redis.get<string>(counterKey(bucket, id, windowStart)));
      return usageOf(bucket, Number(used ?? 0), windowStart);
    },

    async insertKey(key) {
      const fields: Array<[string, string]> = [
        ["id", key.id],
        ["label", key.label],
        ["hash", key.hash],
        ["last4", key.last4],
        ["plan", key.plan],
        ["createdAt", key.createdAt],
        ...(key.revokedAt ? [["revokedAt", key.revokedAt] as [string, string]] : []),
        ...(key.email ? [["email", key.email] as [string, string]] : []),
        ...(key.dailyLimit !== undefined ? [["dailyLimit", String(key.dailyLimit)] as [string, string]] : []),
        ...(key.webhookSecret ? [["webhookSecret", key.webhookSecret] as [string, string]] : []),
      ];
      // One script writes the index and the record, so a reader sees the whole key or none of it.
      const outcome = await call("insertKey", () =>
        scripts.insertKey.exec([KEY_INDEX, recordKey(key.hash)], [key.id, key.hash, ...fields.flat()]),
      );
      if (outcome === "id") throw new Error(`a key with id ${key.id} already exists`);
      if (outcome === "hash") throw new Error(`a key with hash …${key.hash.slice(-8)} already exists`);
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
      const added = await call("addToWaitlist", () =>
        scripts.addToWaitlist.exec([WAITLIST, markerKey()], [entry.email, value, String(MARKER_TTL_MS)]),
      );
      return added === 1;
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
      // Nothing to release: the HTTP client is shared by the process.
    },
  } satisfies Store;
}
