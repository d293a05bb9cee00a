import { IDEMPOTENCY_TTL_MS, type IdempotencyRecord, type IdempotencyStore } from "@/lib/idempotency/idempotency";
import type { HeldUnit } from "@/lib/quota/types";
import { callIn } from "./call";
import type { RedisClient } from "./client";

const call = callIn("jobs ");

const idemKey = (key: string) => `darkroom:idem:${key}`;
const RUNNING = "darkroom:idem-running"; // sorted set: Idempotency-Key claims still running, by lease end

/**
 * A record is the JSON { fingerprint, response, token, leaseUntil, units }: a running claim has response null, a
 * lease end and the units it holds, and its key is in RUNNING by lease end; an answer has its response. Every
 * change but a claim compares the token, inside a script, so a request only ever changes its own claim.
 *
 * KEYS: the record, RUNNING. ARGV: the new claim, its token, now, record lifetime (ms), lease end, the key.
 * Returns {"ours", <the lapsed claim replaced, or "">} or {"held", <the record there>}. A retry of a claim that
 * already landed finds its own token.
 */
const CLAIM = `
local raw = redis.call("GET", KEYS[1])
if raw then
  local rec = cjson.decode(raw)
  if rec.token == ARGV[2] then return {"ours", ""} end
  if type(rec.response) == "table" or (tonumber(rec.leaseUntil) or 0) >= tonumber(ARGV[3]) then
    return {"held", raw}
  end
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[4])
redis.call("ZADD", KEYS[2], ARGV[5], ARGV[6])
return {"ours", raw or ""}
`;

/**
 * KEYS: the record, RUNNING. ARGV: token, lease end, the units held as JSON ("" to keep them), the record's
 * lifetime (ms), the key. Renews a running claim carrying this token: 1, else 0.
 */
const RENEW = `
local raw = redis.call("GET", KEYS[1])
if not raw then return 0 end
local rec = cjson.decode(raw)
if rec.token ~= ARGV[1] or type(rec.response) == "table" then return 0 end
rec.leaseUntil = tonumber(ARGV[2])
if ARGV[3] ~= "" then rec.units = cjson.decode(ARGV[3]) end
redis.call("SET", KEYS[1], cjson.encode(rec), "PX", ARGV[4])
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[5])
return 1
`;

/**
 * KEYS: the record, RUNNING. ARGV: token, the response as JSON, its lifetime (ms), the key. Turns the claim carrying
 * this token into its answer (a retry that already landed does it again): 1, else 0.
 */
const COMPLETE = `
local raw = redis.call("GET", KEYS[1])
if not raw then return 0 end
local rec = cjson.decode(raw)
if rec.token ~= ARGV[1] then return 0 end
local answer = { fingerprint = rec.fingerprint, token = rec.token, response = cjson.decode(ARGV[2]) }
redis.call("SET", KEYS[1], cjson.encode(answer), "PX", ARGV[3])
redis.call("ZREM", KEYS[2], ARGV[4])
return 1
`;

/**
 * KEYS: the record, RUNNING. ARGV: token, the key. Compare-and-delete: removes the claim only while it is running
 * and carries this token, never a stored answer or another request's claim. 1 when removed.
 */
const RELEASE = `
local raw = redis.call("GET", KEYS[1])
if not raw then return 0 end
local rec = cjson.decode(raw)
if rec.token ~= ARGV[1] or type(rec.response) == "table" then return 0 end
redis.call("DEL", KEYS[1])
redis.call("ZREM", KEYS[2], ARGV[2])
return 1
`;

/**
 * KEYS: the record, RUNNING. ARGV: now, the key. Deletes a running claim whose lease ended and returns it (nil
 * otherwise); a key whose claim was answered or vanished leaves RUNNING.
 */
const RECLAIM = `
local raw = redis.call("GET", KEYS[1])
if not raw then
  redis.call("ZREM", KEYS[2], ARGV[2])
  return false
end
local rec = cjson.decode(raw)
if type(rec.response) == "table" then
  redis.call("ZREM", KEYS[2], ARGV[2])
  return false
end
if (tonumber(rec.leaseUntil) or 0) >= tonumber(ARGV[1]) then return false end
redis.call("DEL", KEYS[1])
redis.call("ZREM", KEYS[2], ARGV[2])
return raw
`;

type StoredClaim = IdempotencyRecord & { token?: string; leaseUntil?: number; units?: HeldUnit[] };

const unitsOf = (raw: string): HeldUnit[] => {
  if (!raw) return [];
  const units = (JSON.parse(raw) as StoredClaim).units;
  return Array.isArray(units) ? units : [];
};

export function openUpstashIdempotency(redis: RedisClient): IdempotencyStore {
  const claimScript = redis.createScript<[string, string]>(CLAIM);
  const renew = redis.createScript<number>(RENEW);
  const complete = redis.createScript<number>(COMPLETE);
  const release = redis.createScript<number>(RELEASE);
  const reclaim = redis.createScript<string | null>(RECLAIM);
  const keep = String(IDEMPOTENCY_TTL_MS);

  return {
    async claimIdempotencyKey(key, { fingerprint, token, leaseMs }) {
      const now = Date.now();
      const claim: StoredClaim = { fingerprint, response: null, token, leaseUntil: now + leaseMs, units: [] };
      const args = [JSON.stringify(claim), token, String(now), keep, String(now + leaseMs), key];
      const [state, raw] = await call("claim", () => claimScript.exec([idemKey(key), RUNNING], args));
      if (state === "held") {
        const existing = JSON.parse(raw) as StoredClaim;
        return { ours: false, existing: { fingerprint: existing.fingerprint, response: existing.response ?? null } };
      }
      return { ours: true, lapsedUnits: unitsOf(raw) };
    },
    async hasIdempotencyKey(key) {
      return (await call("exists", () => redis.exists(idemKey(key)))) === 1;
    },
    async renewIdempotencyKey(key, token, leaseMs, units) {
      const args = [token, String(Date.now() + leaseMs), units ? JSON.stringify(units) : "", keep, key];
      return (await call("renew", () => renew.exec([idemKey(key), RUNNING], args))) === 1;
    },
    async completeIdempotencyKey(key, token, response, ttlMs) {
      const args = [token, JSON.stringify(response), String(ttlMs), key];
      return (await call("complete", () => complete.exec([idemKey(key), RUNNING], args))) === 1;
    },
    async releaseIdempotencyKey(key, token) {
      return (await call("release", () => release.exec([idemKey(key), RUNNING], [token, key]))) === 1;
    },
    async reclaimLapsedIdempotencyKeys(now, limit) {
      const keys = await call("reclaim", () =>
        redis.zrange<string[]>(RUNNING, "-inf", now, { byScore: true, offset: 0, count: limit }),
      );
      const lapsed: HeldUnit[][] = [];
      for (const key of keys) {
        const raw = await call("reclaim", () => reclaim.exec([idemKey(key), RUNNING], [String(now), key]));
        if (raw) lapsed.push(unitsOf(raw));
      }
      return lapsed;
    },
  };
}
