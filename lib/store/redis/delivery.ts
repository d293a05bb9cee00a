// Adding a webhook delivery in Redis, shared by the outbox (enqueue) and the job store (a job's end adds its
// delivery in the same script): the outbox's keys, the delivery's script arguments, and the Lua both scripts run.
import crypto from "node:crypto";
import type { NewDelivery } from "@/lib/webhooks/outbox";

/** The outbox's keys under a namespace; the job store adds a delivery with a job's end through them. */
export function outboxKeys(namespace = "darkroom") {
  return {
    due: `${namespace}:webhooks:due`,
    leases: `${namespace}:webhooks:leases`,
    meta: `${namespace}:webhooks:meta`,
    /** Every delivery not leased, by key: members "key\nretry\ntime\nid" (lexical order), all scored 0. */
    queue: `${namespace}:webhooks:queue`,
    /** The keys that have a delivery in the queue (lexical order), and the last one a claim served. */
    keys: `${namespace}:webhooks:keys`,
    cursor: `${namespace}:webhooks:cursor`,
    /** Set once the deliveries stored before the queue existed were queued. */
    queued: `${namespace}:webhooks:queued`,
    delivery: (id: string) => `${namespace}:webhook:${id}`,
    marker: (id: string = crypto.randomUUID()) => `${namespace}:op:${id}`,
  };
}

/**
 * Lua functions over the per-key queue, for every script that adds to it or takes from it. Expects locals `meta`,
 * `queue` and `keyset` (the keys). A delivery's place is its key, whether it is a retry, then its due time (padded, so
 * lexical order is time order) and id; a claim reads each key's due deliveries as one range.
 */
export const QUEUE_LUA = `
local function padTime(t) return string.format("%015d", tonumber(t)) end
local function deliveryMeta(id)
  local m = redis.call("HGET", meta, id) or ""
  local a, k, h = string.match(m, "^([^\\n]*)\\n([^\\n]*)\\n(.*)$")
  return tonumber(a) or 0, k or "", h or ""
end
local function queueDelivery(id, at)
  local a, k = deliveryMeta(id)
  local retry = "0"
  if a > 0 then retry = "1" end
  redis.call("ZADD", queue, 0, k .. "\\n" .. retry .. "\\n" .. padTime(at) .. "\\n" .. id)
  redis.call("ZADD", keyset, 0, k)
end
`;

/**
 * Lua that adds a delivery, for ENQUEUE and the job store's finishing write. Expects locals `dkey`, `due`, `meta`,
 * `queue`, `keyset` (the keys), `id`, `at`, `metaValue` and `fields` (a table of field/value pairs), and QUEUE_LUA;
 * does nothing when it is there.
 */
export const ADD_DELIVERY_LUA = `
if redis.call("EXISTS", dkey) == 0 then
  redis.call("HSET", dkey, unpack(fields))
  redis.call("ZADD", due, at, id)
  redis.call("HSET", meta, id, metaValue)
  queueDelivery(id, at)
end
`;

/** Lua: an error reply, before anything is written, when a key the delivery goes to holds the wrong type. */
export const CHECK_DELIVERY_KEYS_LUA = `
for _, pair in ipairs({{dkey, "hash"}, {due, "zset"}, {meta, "hash"}, {queue, "zset"}, {keyset, "zset"}}) do
  local t = redis.call("TYPE", pair[1]).ok
  if t ~= "none" and t ~= pair[2] then
    return redis.error_reply("WRONGTYPE webhook outbox key " .. pair[1] .. " holds a " .. t)
  end
end
`;

/** The script arguments that describe a delivery: id, first attempt, meta value, then field/value pairs. */
export function deliveryArgs(d: NewDelivery): string[] {
  const fields = {
    id: d.id,
    jobId: d.jobId,
    keyId: d.keyId,
    url: d.url,
    host: d.host,
    secret: d.secret,
    body: d.body,
    attempts: "0",
    lastStatus: "",
    createdAt: String(d.createdAt),
  };
  return [d.id, String(d.nextAttemptAt), `0\n${d.keyId}\n${d.host}`, ...Object.entries(fields).flat()];
}
