// The webhook outbox on Upstash Redis: a hash per delivery, a sorted set of delivery ids by next attempt time
// (a leased delivery is scored at its lease's end), a hash of the lease each claimed delivery is under, a hash of
// what a fair claim needs to know of each delivery ("attempts\nkey\nhost"), and the deliveries not leased queued by
// key (lib/store/redis/delivery.ts) with the set of keys that have any and a cursor, so a claim goes round the keys
// from where the last one stopped and reads only each key's oldest due deliveries: one key's backlog, however long,
// never hides another key's. Each script reads only keys it declares (Upstash locks exactly those).
// @upstash/redis retries a request whose connection failed, and the lost attempt may have run: every script here
// remembers its answer under its call's own id for a minute, so running it twice changes nothing more.
import crypto from "node:crypto";
import { StoreUnavailable } from "@/lib/errors";
import type { ClaimedDelivery, Delivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { CLAIM_LIMITS } from "@/lib/webhooks/policy";
import type { RedisClient } from "./client";
import { ADD_DELIVERY_LUA, CHECK_DELIVERY_KEYS_LUA, deliveryArgs, outboxKeys, QUEUE_LUA } from "./delivery";

export type UpstashWebhookOutboxOptions = {
  /**
   * First part of every key; tests give each run its own.
   * @default "darkroom"
   */
  namespace?: string;
};

const MARKER_TTL_MS = 60_000;
/** A claim looks at this many keys with queued deliveries, from the cursor on; the next claim goes on from there. */
const CLAIM_KEYS = 500;
/** And at most this many of each key's oldest due deliveries (to find one whose host has room). */
const CLAIM_PER_KEY = 32;

/** KEYS: delivery hash, due set, meta hash, call marker, queue, queued keys. ARGV: marker lifetime, then deliveryArgs. */
const ENQUEUE = `#!lua flags=allow-key-locking
local dkey, due, meta, queue, keyset = KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[6]
local id, at, metaValue = ARGV[2], ARGV[3], ARGV[4]
local fields = {unpack(ARGV, 5)}
${CHECK_DELIVERY_KEYS_LUA}${QUEUE_LUA}
if not redis.call("SET", KEYS[4], "1", "NX", "PX", ARGV[1]) then return 0 end
${ADD_DELIVERY_LUA}
return 1
`;

/**
 * KEYS: due set, lease hash, meta hash, call marker (its name carries the lease), queue, queued keys, cursor, queued
 * flag. ARGV: now, lease end, lease, limit, marker lifetime, per-key cap, per-key-and-host cap, per-host cap, keys
 * to look at, deliveries to look at per key. Leases the due ids a fair claim picks and returns them; a repeat
 * returns those the lease still holds.
 *
 * Counts what is in flight per key, key and host, and host (leased, lease not run out; a lease that ran out is
 * dropped and its delivery queued again), then takes due deliveries, first attempts first, round-robin across the
 * keys after the cursor (each key's oldest whose host has room), while the caps allow.
 */
const CLAIM = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[4])
if done then
  local held = {}
  for id in string.gmatch(done, "[^\\n]+") do
    if redis.call("HGET", KEYS[2], id) == ARGV[3] then table.insert(held, id) end
  end
  return held
end
local due, leases, meta, queue, keyset = KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[6]
${QUEUE_LUA}
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[4])
local perKey, perKeyHost, perHost = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local keysToScan, perKeyScan = tonumber(ARGV[9]), tonumber(ARGV[10])
-- Deliveries stored before the queue existed are queued once.
if redis.call("EXISTS", KEYS[8]) == 0 then
  local all = redis.call("ZRANGE", due, 0, -1, "WITHSCORES")
  for i = 1, #all, 2 do
    if not redis.call("HGET", leases, all[i]) then queueDelivery(all[i], all[i + 1]) end
  end
  redis.call("SET", KEYS[8], "1")
end
local byKey, byPair, byHost = {}, {}, {}
local function pair(k, h) return k .. "\\n" .. h end
local function count(k, h)
  byKey[k] = (byKey[k] or 0) + 1
  byPair[pair(k, h)] = (byPair[pair(k, h)] or 0) + 1
  byHost[h] = (byHost[h] or 0) + 1
end
for _, id in ipairs(redis.call("HKEYS", leases)) do
  local score = redis.call("ZSCORE", due, id)
  if score and tonumber(score) > now then
    local _, k, h = deliveryMeta(id)
    count(k, h)
  else
    redis.call("HDEL", leases, id)
    if score then queueDelivery(id, score) end
  end
end
local cursor = redis.call("GET", KEYS[7])
local order
if cursor then
  order = redis.call("ZRANGEBYLEX", keyset, "(" .. cursor, "+", "LIMIT", 0, keysToScan)
  if #order < keysToScan then
    for _, k in ipairs(redis.call("ZRANGEBYLEX", keyset, "-", "[" .. cursor, "LIMIT", 0, keysToScan - #order)) do
      table.insert(order, k)
    end
  end
else
  order = redis.call("ZRANGEBYLEX", keyset, "-", "+", "LIMIT", 0, keysToScan)
end
local ids, served = {}, nil
local upTo = padTime(now) .. "\\n\\255"
for pass = 0, 1 do
  local found = {}
  local took = true
  while took and #ids < limit do
    took = false
    for _, k in ipairs(order) do
      if #ids >= limit then break end
      if (byKey[k] or 0) < perKey then
        local q = found[k]
        if not q then
          local from = k .. "\\n" .. pass .. "\\n"
          q = redis.call("ZRANGEBYLEX", queue, "[" .. from, "[" .. from .. upTo, "LIMIT", 0, perKeyScan)
          found[k] = q
        end
        for j = 1, #q do
          local member = q[j]
          if member then
            local id = string.match(member, "([^\\n]*)$")
            local _, _, h = deliveryMeta(id)
            if (byPair[pair(k, h)] or 0) < perKeyHost and (byHost[h] or 0) < perHost then
              q[j] = false
              redis.call("ZREM", queue, member)
              table.insert(ids, id)
              count(k, h)
              served = k
              took = true
              break
            end
          end
        end
      end
    end
  end
end
-- Keys left with nothing queued leave the set; the cursor moves past what this claim looked at.
for _, k in ipairs(order) do
  if #redis.call("ZRANGEBYLEX", queue, "[" .. k .. "\\n", "[" .. k .. "\\n\\255", "LIMIT", 0, 1) == 0 then
    redis.call("ZREM", keyset, k)
  end
end
if served or #order > 0 then redis.call("SET", KEYS[7], served or order[#order]) end
for _, id in ipairs(ids) do
  redis.call("ZADD", due, "XX", ARGV[2], id)
  redis.call("HSET", leases, id, ARGV[3])
end
redis.call("SET", KEYS[4], "\\n" .. table.concat(ids, "\\n"), "PX", ARGV[5])
return ids
`;

/**
 * KEYS: due set, lease hash, delivery hash, call marker, meta hash, queue, queued keys. ARGV: id, lease, attempts,
 * last status ("" for none), next attempt ("" when finished), marker lifetime. 1 when recorded, 0 when the lease is
 * no longer this one.
 */
const RECORD = `#!lua flags=allow-key-locking
local meta, queue, keyset = KEYS[5], KEYS[6], KEYS[7]
${QUEUE_LUA}
local done = redis.call("GET", KEYS[4])
if done then return tonumber(done) end
local ok = 0
if redis.call("HGET", KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call("HDEL", KEYS[2], ARGV[1])
  if ARGV[5] == "" then
    redis.call("DEL", KEYS[3])
    redis.call("ZREM", KEYS[1], ARGV[1])
    redis.call("HDEL", KEYS[5], ARGV[1])
  else
    redis.call("HSET", KEYS[3], "attempts", ARGV[3], "lastStatus", ARGV[4])
    redis.call("ZADD", KEYS[1], "XX", ARGV[5], ARGV[1])
    local rest = string.match(redis.call("HGET", KEYS[5], ARGV[1]) or "", "^[^\\n]*(\\n.*)$") or "\\n\\n"
    redis.call("HSET", KEYS[5], ARGV[1], ARGV[3] .. rest)
    queueDelivery(ARGV[1], ARGV[5])
  end
  ok = 1
end
redis.call("SET", KEYS[4], ok, "PX", ARGV[6])
return ok
`;

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StoreUnavailable(
      `upstash: webhooks: ${what} failed: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  }
}

/** HGETALL replies come back as a flat [field, value, …] array with deserialization off. */
function fieldsOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i])] = String(raw[i + 1]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out[k] = String(v);
  }
  return out;
}

function toDelivery(raw: unknown, score: unknown): Delivery | null {
  const f = fieldsOf(raw);
  if (!f.id) return null;
  return {
    id: f.id,
    jobId: f.jobId ?? "",
    keyId: f.keyId ?? "",
    url: f.url ?? "",
    host: f.host ?? "",
    secret: f.secret ?? "",
    body: f.body ?? "",
    attempts: Number(f.attempts ?? 0),
    lastStatus: f.lastStatus ? Number(f.lastStatus) : null,
    nextAttemptAt: Number(score ?? 0),
    createdAt: Number(f.createdAt ?? 0),
  };
}

export function openUpstashWebhookOutbox(redis: RedisClient, opts: UpstashWebhookOutboxOptions = {}): WebhookOutbox {
  const ns = opts.namespace ?? "darkroom";
  // The scripts are safe to run twice.
  const scripts = {
    enqueue: redis.createScript<number>(ENQUEUE),
    claim: redis.createScript<string[]>(CLAIM),
    record: redis.createScript<number>(RECORD),
  };
  const keys = outboxKeys(ns);
  const { due: DUE, leases: LEASES, meta: META, queue: QUEUE, keys: KEYSET, delivery: deliveryKey } = keys;
  const markerKey = keys.marker;

  const read = async (id: string): Promise<Delivery | null> => {
    const [raw, score] = await call("get", () => Promise.all([redis.hgetall(deliveryKey(id)), redis.zscore(DUE, id)]));
    return toDelivery(raw, score);
  };

  return {
    kind: "upstash",
    async enqueue(d) {
      await call("enqueue", () =>
        scripts.enqueue.exec(
          [deliveryKey(d.id), DUE, META, markerKey(), QUEUE, KEYSET],
          [String(MARKER_TTL_MS), ...deliveryArgs(d)],
        ),
      );
    },
    async claimDue(now, leaseMs, limit, caps = CLAIM_LIMITS) {
      const lease = crypto.randomUUID();
      const ids = await call("claimDue", () =>
        scripts.claim.exec(
          [DUE, LEASES, META, markerKey(lease), QUEUE, KEYSET, keys.cursor, keys.queued],
          [
            String(now),
            String(now + leaseMs),
            lease,
            String(limit),
            String(MARKER_TTL_MS),
            String(caps.perKey),
            String(caps.perKeyHost),
            String(caps.perHost),
            String(CLAIM_KEYS),
            String(CLAIM_PER_KEY),
          ],
        ),
      );
      const deliveries = await Promise.all((ids ?? []).map((id) => read(String(id))));
      return deliveries
        .filter((d): d is Delivery => d !== null)
        .map((d): ClaimedDelivery => ({ ...d, lease }))
        .sort((a, b) => Number(a.attempts > 0) - Number(b.attempts > 0) || a.createdAt - b.createdAt);
    },
    async recordAttempt(id, lease, record) {
      const recorded = await call("recordAttempt", () =>
        scripts.record.exec(
          [DUE, LEASES, deliveryKey(id), markerKey(), META, QUEUE, KEYSET],
          [
            id,
            lease,
            String(record.attempts),
            record.lastStatus === null ? "" : String(record.lastStatus),
            record.retryAt === null ? "" : String(record.retryAt),
            String(MARKER_TTL_MS),
          ],
        ),
      );
      return Number(recorded) === 1;
    },
    get: read,
    async close() {
      // Nothing to release: the client holds no connection of its own between requests.
    },
  };
}
