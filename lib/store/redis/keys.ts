// Pro keys in Redis: an index (id → hash) and one hash per key, read on every request (no cache), so a revocation
// is seen by every instance at once.
import type { KeyRecord, KeyRepository } from "@/lib/auth/types";
import { byCreated, call, pairs } from "./call";
import type { RedisClient } from "./client";
import { INSERT_KEY } from "./lua/keys";

export const KEY_INDEX = "darkroom:keys"; // hash: key id → key hash; also the list of all keys
export const recordKey = (hash: string) => `darkroom:key:${hash}`; // hash: the KeyRecord's fields
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

/** The record's field/value pairs as the key's hash holds them; unset 1.1 fields are left out. */
export function keyFields(key: KeyRecord): string[] {
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
  return fields.flat();
}

/** What INSERT_KEY and APPROVE_WAITLIST_ENTRY answer when the key cannot be stored. */
export function checkKeyInsert(outcome: string, key: KeyRecord): void {
  if (outcome === "id") throw new Error(`a key with id ${key.id} already exists`);
  if (outcome === "hash") throw new Error(`a key with hash …${key.hash.slice(-8)} already exists`);
}

export function openUpstashKeys(redis: RedisClient): KeyRepository {
  const insertKey = redis.createScript<string>(INSERT_KEY);
  const hashOf = async (id: string) => call("findKey", () => redis.hget<string>(KEY_INDEX, id));
  return {
    async insertKey(key) {
      // One script writes the index and the record, so a reader sees the whole key or none of it.
      const outcome = await call("insertKey", () =>
        insertKey.exec([KEY_INDEX, recordKey(key.hash)], [key.id, key.hash, ...keyFields(key)]),
      );
      checkKeyInsert(outcome, key);
    },
    async findKey(id) {
      const hash = await hashOf(id);
      return hash ? toKeyRecord(await call("findKey", () => redis.hgetall(recordKey(hash)))) : null;
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
      const hash = await hashOf(id);
      if (!hash) return false;
      // HSETNX: the first revocation wins atomically, without a read-modify-write script.
      await call("revokeKey", () => redis.hsetnx(recordKey(hash), "revokedAt", at));
      return true;
    },
    async setKeyDailyLimit(id, limit) {
      const hash = await hashOf(id);
      if (!hash) return false;
      // Setting a value is safe to repeat.
      if (limit === null) await call("setKeyDailyLimit", () => redis.hdel(recordKey(hash), "dailyLimit"));
      else await call("setKeyDailyLimit", () => redis.hset(recordKey(hash), { dailyLimit: String(limit) }));
      return true;
    },
    async ensureWebhookSecret(id, secret) {
      const hash = await hashOf(id);
      if (!hash) return null;
      await call("ensureWebhookSecret", () => redis.hsetnx(recordKey(hash), "webhookSecret", secret));
      return call("ensureWebhookSecret", () => redis.hget<string>(recordKey(hash), "webhookSecret"));
    },
  };
}
