// The webhook outbox on Upstash Redis: a hash per delivery, a sorted set of delivery ids by next attempt time
// (a leased delivery is scored at its lease's end), a hash of the lease each claimed delivery is under, and a hash
// of what a fair claim needs to know of each delivery ("attempts\nkey\nhost"), so the claim script reads only keys
// it declares (Upstash locks exactly those).
// @upstash/redis retries a request whose connection failed, and the lost attempt may have run: every script here
// remembers its answer under its call's own id for a minute, so running it twice changes nothing more.
import crypto from "node:crypto";
import { StoreUnavailable } from "@/lib/errors";
import type { ClaimedDelivery, Delivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { CLAIM_LIMITS } from "@/lib/webhooks/policy";
import type { RedisClient } from "./client";
import { ADD_DELIVERY_LUA, CHECK_DELIVERY_KEYS_LUA, deliveryArgs, outboxKeys } from "./delivery";

export type UpstashWebhookOutboxOptions = {
  /**
   * First part of every key; tests give each run its own.
   * @default "darkroom"
   */
  namespace?: string;
};

const MARKER_TTL_MS = 60_000;
/** A claim looks at most this many due deliveries (in due order) to share out; the rest wait for the next claim. */
const CLAIM_SCAN = 1000;

/** KEYS: delivery hash, due set, meta hash, call marker. ARGV: marker lifetime, then deliveryArgs. */
const ENQUEUE = `#!lua flags=allow-key-locking
local dkey, due, meta = KEYS[1], KEYS[2], KEYS[3]
local id, at, metaValue = ARGV[2], ARGV[3], ARGV[4]
local fields = {unpack(ARGV, 5)}
${CHECK_DELIVERY_KEYS_LUA}
if not redis.call("SET", KEYS[4], "1", "NX", "PX", ARGV[1]) then return 0 end
${ADD_DELIVERY_LUA}
return 1
`;

/**
 * KEYS: due set, lease hash, meta hash, call marker (its name carries the lease). ARGV: now, lease end, lease,
 * limit, marker lifetime, per-key cap, per-host cap, how many due ids to look at. Leases the due ids a fair claim
 * picks and returns them; a repeat returns those the lease still holds.
 *
 * Counts what is in flight per key and host (leased, scored after now), then takes due deliveries first attempts
 * first, round-robin across keys (each key's oldest whose host has room), while its key and host are under the caps.
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
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[4])
local perKey, perHost = tonumber(ARGV[6]), tonumber(ARGV[7])
local function meta(id)
  local m = redis.call("HGET", KEYS[3], id) or ""
  local a, k, h = string.match(m, "^([^\\n]*)\\n([^\\n]*)\\n(.*)$")
  return tonumber(a) or 0, k or "", h or ""
end
local byKey, byHost = {}, {}
local leased = redis.call("HKEYS", KEYS[2])
for _, id in ipairs(leased) do
  local score = redis.call("ZSCORE", KEYS[1], id)
  if score and tonumber(score) > now then
    local _, k, h = meta(id)
    byKey[k] = (byKey[k] or 0) + 1
    byHost[h] = (byHost[h] or 0) + 1
  end
end
local due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, tonumber(ARGV[8]))
local ids = {}
for pass = 0, 1 do
  local order, queues = {}, {}
  for _, id in ipairs(due) do
    local a, k, h = meta(id)
    if (a > 0) == (pass == 1) then
      if not queues[k] then
        queues[k] = {}
        table.insert(order, k)
      end
      table.insert(queues[k], {id, h})
    end
  end
  local took = true
  while took and #ids < limit do
    took = false
    for _, k in ipairs(order) do
      if #ids >= limit then break end
      local q = queues[k]
      if (byKey[k] or 0) < perKey then
        for j = 1, #q do
          local h = q[j][2]
          if (byHost[h] or 0) < perHost then
            table.insert(ids, q[j][1])
            table.remove(q, j)
            byKey[k] = (byKey[k] or 0) + 1
            byHost[h] = (byHost[h] or 0) + 1
            took = true
            break
          end
        end
      end
    end
  end
end
for _, id in ipairs(ids) do
  redis.call("ZADD", KEYS[1], "XX", ARGV[2], id)
  redis.call("HSET", KEYS[2], id, ARGV[3])
end
redis.call("SET", KEYS[4], "\\n" .. table.concat(ids, "\\n"), "PX", ARGV[5])
return ids
`;

/**
 * KEYS: due set, lease hash, delivery hash, call marker, meta hash. ARGV: id, lease, attempts, last status ("" for
 * none), next attempt ("" when finished), marker lifetime. 1 when recorded, 0 when the lease is no longer this one.
 */
const RECORD = `#!lua flags=allow-key-locking
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
  const { due: DUE, leases: LEASES, meta: META, delivery: deliveryKey, marker: markerKey } = keys;

  const read = async (id: string): Promise<Delivery | null> => {
    const [raw, score] = await call("get", () => Promise.all([redis.hgetall(deliveryKey(id)), redis.zscore(DUE, id)]));
    return toDelivery(raw, score);
  };

  return {
    kind: "upstash",
    async enqueue(d) {
      await call("enqueue", () =>
        scripts.enqueue.exec([deliveryKey(d.id), DUE, META, markerKey()], [String(MARKER_TTL_MS), ...deliveryArgs(d)]),
      );
    },
    async claimDue(now, leaseMs, limit, caps = CLAIM_LIMITS) {
      const lease = crypto.randomUUID();
      const ids = await call("claimDue", () =>
        scripts.claim.exec(
          [DUE, LEASES, META, markerKey(lease)],
          [
            String(now),
            String(now + leaseMs),
            lease,
            String(limit),
            String(MARKER_TTL_MS),
            String(caps.perKey),
            String(caps.perHost),
            String(CLAIM_SCAN),
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
          [DUE, LEASES, deliveryKey(id), markerKey(), META],
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
