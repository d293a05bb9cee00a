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
    delivery: (id: string) => `${namespace}:webhook:${id}`,
    marker: (id: string = crypto.randomUUID()) => `${namespace}:op:${id}`,
  };
}

/**
 * Lua that adds a delivery, for ENQUEUE and the job store's finishing write. Expects locals `dkey`, `due`, `meta`
 * (the keys), `id`, `at`, `metaValue` and `fields` (a table of field/value pairs); does nothing when it is there.
 */
export const ADD_DELIVERY_LUA = `
if redis.call("EXISTS", dkey) == 0 then
  redis.call("HSET", dkey, unpack(fields))
  redis.call("ZADD", due, at, id)
  redis.call("HSET", meta, id, metaValue)
end
`;

/** Lua: an error reply, before anything is written, when a key the delivery goes to holds the wrong type. */
export const CHECK_DELIVERY_KEYS_LUA = `
for _, pair in ipairs({{dkey, "hash"}, {due, "zset"}, {meta, "hash"}}) do
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
