// The webhook outbox on Upstash Redis: a hash per delivery, a sorted set of delivery ids by next attempt time
// (a leased delivery is scored at its lease's end), and a hash of the lease each claimed delivery is under.
// @upstash/redis retries a request whose connection failed, and the lost attempt may have run: every script here
// remembers its answer under its call's own id for a minute, so running it twice changes nothing more.
import crypto from "node:crypto";
import { StoreUnavailable } from "@/lib/errors";
import type { ClaimedDelivery, Delivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import type { RedisClient } from "./redis-client";

export type UpstashWebhookOutboxOptions = {
  /**
   * First part of every key; tests give each run its own.
   * @default "darkroom"
   */
  namespace?: string;
};

const MARKER_TTL_MS = 60_000;

/** KEYS: delivery hash, due set, call marker. ARGV: id, first attempt (ms), marker lifetime, field/value pairs. */
const ENQUEUE = `#!lua flags=allow-key-locking
if not redis.call("SET", KEYS[3], "1", "NX", "PX", ARGV[3]) then return 0 end
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("HSET", KEYS[1], unpack(ARGV, 4))
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])
return 1
`;

/**
 * KEYS: due set, lease hash, call marker (its name carries the lease). ARGV: now, lease end, lease, limit, marker
 * lifetime. Leases the due ids (oldest first) and returns them; a repeat returns those the lease still holds.
 */
const CLAIM = `#!lua flags=allow-key-locking
local done = redis.call("GET", KEYS[3])
if done then
  local held = {}
  for id in string.gmatch(done, "[^\\n]+") do
    if redis.call("HGET", KEYS[2], id) == ARGV[3] then table.insert(held, id) end
  end
  return held
end
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, tonumber(ARGV[4]))
for _, id in ipairs(ids) do
  redis.call("ZADD", KEYS[1], "XX", ARGV[2], id)
  redis.call("HSET", KEYS[2], id, ARGV[3])
end
redis.call("SET", KEYS[3], "\\n" .. table.concat(ids, "\\n"), "PX", ARGV[5])
return ids
`;

/**
 * KEYS: due set, lease hash, delivery hash, call marker. ARGV: id, lease, attempts, last status ("" for none),
 * next attempt ("" when finished), marker lifetime. 1 when recorded, 0 when the lease is no longer this one.
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
  else
    redis.call("HSET", KEYS[3], "attempts", ARGV[3], "lastStatus", ARGV[4])
    redis.call("ZADD", KEYS[1], "XX", ARGV[5], ARGV[1])
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
    url: f.url ?? "",
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
  const DUE = `${ns}:webhooks:due`;
  const LEASES = `${ns}:webhooks:leases`;
  const deliveryKey = (id: string) => `${ns}:webhook:${id}`;
  const markerKey = (id: string = crypto.randomUUID()) => `${ns}:op:${id}`;

  const read = async (id: string): Promise<Delivery | null> => {
    const [raw, score] = await call("get", () => Promise.all([redis.hgetall(deliveryKey(id)), redis.zscore(DUE, id)]));
    return toDelivery(raw, score);
  };

  return {
    kind: "upstash",
    async enqueue(d) {
      const fields = {
        id: d.id,
        jobId: d.jobId,
        url: d.url,
        secret: d.secret,
        body: d.body,
        attempts: "0",
        lastStatus: "",
        createdAt: String(d.createdAt),
      };
      await call("enqueue", () =>
        scripts.enqueue.exec(
          [deliveryKey(d.id), DUE, markerKey()],
          [d.id, String(d.nextAttemptAt), String(MARKER_TTL_MS), ...Object.entries(fields).flat()],
        ),
      );
    },
    async claimDue(now, leaseMs, limit) {
      const lease = crypto.randomUUID();
      const ids = await call("claimDue", () =>
        scripts.claim.exec(
          [DUE, LEASES, markerKey(lease)],
          [String(now), String(now + leaseMs), lease, String(limit), String(MARKER_TTL_MS)],
        ),
      );
      const deliveries = await Promise.all((ids ?? []).map((id) => read(String(id))));
      return deliveries
        .filter((d): d is Delivery => d !== null)
        .map((d): ClaimedDelivery => ({ ...d, lease }))
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async recordAttempt(id, lease, record) {
      const recorded = await call("recordAttempt", () =>
        scripts.record.exec(
          [DUE, LEASES, deliveryKey(id), markerKey()],
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
